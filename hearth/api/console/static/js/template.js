// The template tab: the stack's template and environment, highlighted.

import hljs from "../vendor/highlight-core.min.js";
import json from "../vendor/highlight-json.min.js";
import { clear, errorBox, h } from "./dom.js";

hljs.registerLanguage("json", json);

export function highlighted(value) {
  const code = h("code", { class: "hljs language-json" });
  code.innerHTML = hljs.highlight(JSON.stringify(value, null, 2), { language: "json" }).value;
  return h("pre", { class: "template" }, code);
}

export function renderTemplate(ctx, stack, host) {
  const base = ctx.api.stackPath(stack);
  Promise.all([ctx.api.get(`${base}/template`), ctx.api.get(`${base}/environment`)])
    .then(([template, env]) => clear(host,
      h("section", { class: "card wide", id: "template-view" }, h("h2", {}, "Template"),
        highlighted(template)),
      h("section", { class: "card wide" }, h("h2", {}, "Environment"), highlighted(env))))
    .catch((err) => clear(host, errorBox(err.message)));
}
