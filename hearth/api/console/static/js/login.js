// Sign-in: a Keystone password login (through Hearth) or, in noauth mode, just a project.

import { login } from "./api.js";
import { clear, errorBox, h } from "./dom.js";

export function renderLogin(page, config, done) {
  const keystone = config.auth === "keystone";
  const status = h("div", { id: "login-status" });
  const field = (name, label, attrs = {}) => h("label", {}, label,
    h("input", { name, id: `login-${name}`, required: true, ...attrs }));
  const form = h("form", { id: "login-form", class: "card narrow" },
    h("h1", {}, keystone ? "Sign in" : "Choose a project"),
    keystone
      ? [field("username", "User"), field("password", "Password", { type: "password" }),
        field("project", "Project"), field("domain", "Domain", { value: "Default" })]
      : [h("p", { class: "muted" }, "This Hearth runs without authentication (noauth)."),
        field("project", "Project", { value: "demo" })],
    h("button", { type: "submit", class: "primary" }, keystone ? "Sign in" : "Open"),
    status);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const data = Object.fromEntries(new FormData(form).entries());
    if (!keystone) {
      done({ project: data.project.trim() });
      return;
    }
    clear(status, h("p", { class: "muted" }, "Signing in…"));
    try {
      const got = await login(data);
      done({ project: got.project_id, project_name: got.project_name, token: got.token,
        user: got.user });
    } catch (err) {
      clear(status, errorBox(err.message));
    }
  });
  clear(page, form);
  return null;
}
