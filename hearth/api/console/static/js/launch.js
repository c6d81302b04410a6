// Launch and Update: pick or paste a template and environment files; the parameter form is
// built from POST /validate as you type; Update previews its changes before it runs.

import { clear, errorBox, h } from "./dom.js";
import { parameterForm } from "./params.js";

const VALIDATE_DELAY_MS = 350;
const PASTED_ENV = "console-environment.yaml";
const CHANGE_KINDS = ["added", "deleted", "replaced", "updated", "unchanged"];

const readFile = (file) => new Promise((resolve, reject) => {
  const reader = new FileReader();
  reader.onload = () => resolve(String(reader.result));
  reader.onerror = () => reject(new Error(`Cannot read ${file.name}`));
  reader.readAsText(file);
});

export function renderLaunch(ctx, stack = null, host = null) {
  const updating = Boolean(stack);
  const values = new Map();
  const envFiles = new Map();
  let form = null;
  let timer = null;
  let validatedOk = false;

  const templateText = h("textarea", { id: "template-text", rows: 14, spellcheck: false,
    placeholder: "heat_template_version: 2021-04-16\nresources: ..." });
  const envText = h("textarea", { id: "environment-text", rows: 4, spellcheck: false,
    placeholder: "parameter_defaults: ..." });
  const nameInput = h("input", { id: "stack-name", name: "stack_name", required: true });
  const templateError = h("div", { id: "template-error" });
  const paramsHost = h("div", { id: "params" });
  const submitError = h("div", { id: "submit-error" });
  const previewHost = h("div", { id: "preview" });
  const envList = h("span", { class: "muted" });
  const submit = h("button", { type: "submit", class: "primary", id: "launch-submit",
    disabled: true }, updating ? "Run update" : "Launch");
  const previewButton = updating ? h("button", { type: "button", id: "preview-update",
    disabled: true, onclick: () => preview() }, "Preview update") : null;

  const body = () => {
    const files = Object.fromEntries(envFiles);
    if (envText.value.trim()) files[PASTED_ENV] = envText.value;
    const out = { template: templateText.value, files,
      environment_files: Object.keys(files), parameters: form ? form.read() : {} };
    if (!updating) out.stack_name = nameInput.value.trim();
    return out;
  };

  const refreshButtons = () => {
    const ok = validatedOk && form && form.check() && (updating || nameInput.value.trim() !== "");
    submit.disabled = !ok;
    if (previewButton) previewButton.disabled = !ok;
  };

  const validate = async () => {
    if (!templateText.value.trim()) {
      validatedOk = false;
      clear(templateError);
      refreshButtons();
      return;
    }
    const { template, files, environment_files: envs } = body();
    try {
      const got = await ctx.api.post("/validate", { template, files, environment_files: envs });
      clear(templateError, h("p", { class: "ok" }, "Template is valid."));
      validatedOk = true;
      form = parameterForm(paramsHost, got, values, refreshButtons, updating);
    } catch (err) {
      validatedOk = false;
      clear(templateError, errorBox(err.message));
    }
    refreshButtons();
  };
  const soon = () => { clearTimeout(timer); timer = setTimeout(validate, VALIDATE_DELAY_MS); };

  const preview = async () => {
    clear(previewHost, h("p", { class: "muted" }, "Previewing…"));
    try {
      const got = await ctx.api.call("PATCH", `${ctx.api.stackPath(stack)}/preview`, body());
      const changes = got.resource_changes || {};
      clear(previewHost, h("div", { class: "changes", id: "preview-result" },
        CHANGE_KINDS.map((kind) => {
          const list = changes[kind] || [];
          return h("section", { class: `change change-${kind}`, dataset: { kind } },
            h("h3", {}, `${kind} (${list.length})`),
            h("ul", {}, list.map((r) => h("li", {}, r.resource_name || r.logical_resource_id
              || String(r)))));
        })));
      previewHost.scrollIntoView({ block: "nearest" });
    } catch (err) {
      clear(previewHost, errorBox(err.message));
    }
  };

  const onSubmit = async (ev) => {
    ev.preventDefault();
    if (!form || !form.check()) return;
    clear(submitError, h("p", { class: "muted" }, updating ? "Updating…" : "Launching…"));
    try {
      if (updating) {
        await ctx.api.call("PATCH", ctx.api.stackPath(stack), body());
        ctx.navigate(`#/stack/${encodeURIComponent(stack.stack_name)}/${stack.id}/topology`);
      } else {
        const sent = body();
        const got = await ctx.api.post("/stacks", sent);
        ctx.navigate(`#/stack/${encodeURIComponent(sent.stack_name)}/${got.stack.id}/topology`);
      }
    } catch (err) {
      clear(submitError, errorBox(err.message));
    }
  };

  const pickTemplate = h("input", { type: "file", id: "template-file", onchange: async (ev) => {
    const [file] = ev.target.files;
    if (!file) return;
    try {
      templateText.value = await readFile(file);
      soon();
    } catch (err) {
      clear(templateError, errorBox(err.message));
    }
  } });
  const pickEnv = h("input", { type: "file", id: "environment-files", multiple: true,
    onchange: async (ev) => {
      envFiles.clear();
      try {
        for (const file of ev.target.files) envFiles.set(file.name, await readFile(file));
      } catch (err) {
        clear(templateError, errorBox(err.message));
      }
      clear(envList, [...envFiles.keys()].join(", "));
      soon();
    } });
  templateText.addEventListener("input", soon);
  envText.addEventListener("input", soon);
  nameInput.addEventListener("input", refreshButtons);

  const formEl = h("form", { class: "launch", id: "launch-form", onsubmit: onSubmit },
    updating ? null : h("label", {}, "Stack name", nameInput),
    h("section", {}, h("h2", {}, "Template"), pickTemplate, templateText, templateError),
    h("section", {}, h("h2", {}, "Environment"), pickEnv, envList, envText),
    h("section", {}, h("h2", {}, "Parameters"), paramsHost),
    h("div", { class: "toolbar" }, previewButton, submit), previewHost, submitError);
  const target = host || ctx.page;
  clear(target, updating ? null : h("h1", {}, "Launch a stack"), formEl);

  if (updating) {
    for (const [k, v] of Object.entries(stack.parameters || {})) {
      if (!k.startsWith("OS::") && v !== "******") values.set(k, String(v));
    }
    ctx.api.get(`${ctx.api.stackPath(stack)}/template`).then((t) => {
      templateText.value = JSON.stringify(t, null, 2);
      validate();
    }).catch((err) => clear(templateError, errorBox(err.message)));
  }
  return null;
}
