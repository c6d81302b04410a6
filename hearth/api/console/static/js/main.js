// The console's shell: sign-in, the navigation bar and the fragment router (#/...).

import { Api, settings } from "./api.js";
import { clear, errorBox, h } from "./dom.js";
import { renderLogin } from "./login.js";
import { renderStacks } from "./stacks.js";
import { renderStack } from "./stack.js";
import { renderLaunch } from "./launch.js";

const SESSION_KEY = "hearth-console-session";
const page = document.getElementById("page");
let cleanup = null;
let config = null;

function loadSession() {
  try { return JSON.parse(sessionStorage.getItem(SESSION_KEY) || "null"); } catch { return null; }
}

export function saveSession(session) {
  if (session) sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(SESSION_KEY);
}

function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function header(session) {
  const nav = document.getElementById("nav");
  const who = document.getElementById("who");
  if (!session) {
    clear(nav);
    clear(who);
    return;
  }
  clear(nav, h("a", { href: "#/stacks" }, "Stacks"), h("a", { href: "#/launch" }, "Launch"));
  clear(who,
    h("span", { class: "muted" }, session.user ? `${session.user} @ ` : "project "),
    h("b", { id: "project-name" }, session.project_name || session.project),
    " ",
    h("button", { class: "link", onclick: () => { saveSession(null); navigate("#/login"); } },
      "Sign out"));
}

async function route() {
  if (cleanup) { cleanup(); cleanup = null; }
  if (!config) {
    try { config = await settings(); } catch (err) {
      clear(page, errorBox(`The console cannot start: ${err.message}`));
      return;
    }
  }
  const session = loadSession();
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  if (!session || parts[0] === "login") {
    header(null);
    cleanup = renderLogin(page, config, (s) => { saveSession(s); navigate("#/stacks"); });
    return;
  }
  header(session);
  const api = new Api(session);
  api.onUnauthorized = () => { saveSession(null); navigate("#/login"); };
  const ctx = { api, navigate, page };
  try {
    if (parts[0] === "stack" && parts.length >= 3) {
      cleanup = renderStack(ctx, parts[1], parts[2], parts[3] || "overview");
    } else if (parts[0] === "launch") {
      cleanup = renderLaunch(ctx);
    } else {
      cleanup = renderStacks(ctx);
    }
  } catch (err) {
    clear(page, errorBox(err.message));
  }
}

window.addEventListener("hashchange", route);
route();
