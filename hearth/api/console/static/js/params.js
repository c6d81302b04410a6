// The parameter form, generated from POST /validate's answer (types, constraints, defaults,
// hidden, labels, groups, descriptions), and the constraint checks it makes as you type.

import { h } from "./dom.js";

// The message for a value that breaks one of the parameter's constraints, else "".
// `keep`: an empty value keeps the stack's current one (an update), so it is no error.
export function constraintError(name, schema, raw, keep = false) {
  const value = raw === undefined || raw === null ? "" : String(raw);
  if (value === "") {
    return schema.Default === undefined && !keep ? `Parameter '${name}' needs a value.` : "";
  }
  const say = (fallback) => schema.ConstraintDescription || fallback;
  if (schema.Type === "Number") {
    const n = Number(value);
    if (value.trim() === "" || Number.isNaN(n)) return `'${value}' is not a number.`;
    if (schema.MinValue !== undefined && n < schema.MinValue) {
      return say(`The value must be at least ${schema.MinValue}.`);
    }
    if (schema.MaxValue !== undefined && n > schema.MaxValue) {
      return say(`The value must be no greater than ${schema.MaxValue}.`);
    }
  }
  if (schema.Type === "String") {
    if (schema.MinLength !== undefined && value.length < schema.MinLength) {
      return say(`The length must be at least ${schema.MinLength}.`);
    }
    if (schema.MaxLength !== undefined && value.length > schema.MaxLength) {
      return say(`The length must be no greater than ${schema.MaxLength}.`);
    }
    if (schema.AllowedPattern && !new RegExp(`^(?:${schema.AllowedPattern})$`).test(value)) {
      return say(`"${value}" does not match pattern "${schema.AllowedPattern}".`);
    }
  }
  if (schema.Type === "Json") {
    try { JSON.parse(value); } catch { return `The value is not valid JSON.`; }
  }
  if (schema.AllowedValues && !schema.AllowedValues.map(String).includes(value)) {
    return say(`"${value}" is not an allowed value ${JSON.stringify(schema.AllowedValues)}.`);
  }
  return "";
}

function input(name, schema, value, keep) {
  const id = `param-${name}`;
  if (schema.AllowedValues) {
    return h("select", { id, name }, schema.AllowedValues.map((v) =>
      h("option", { value: String(v), selected: String(v) === value }, String(v))));
  }
  if (schema.Type === "Boolean") {
    return h("select", { id, name }, ["true", "false"].map((v) =>
      h("option", { value: v, selected: v === String(value).toLowerCase() }, v)));
  }
  if (schema.Type === "Json" || schema.Type === "CommaDelimitedList") {
    return h("textarea", { id, name, rows: 2, value });
  }
  return h("input", { id, name, value,
    type: String(schema.NoEcho) === "true" ? "password" : "text",
    placeholder: keep ? "unchanged" : undefined,
    inputmode: schema.Type === "Number" ? "decimal" : undefined });
}

function defaultText(schema) {
  const d = schema.Default;
  if (d === undefined || d === null) return "";
  return typeof d === "object" ? JSON.stringify(d) : String(d);
}

// Builds the fields into `host`; `values` keeps what the user typed across re-renders; with
// `keep` (an update) an empty field keeps the stack's current value.
// Returns {read(), check()}: the values to send, and whether all pass their constraints.
export function parameterForm(host, validated, values, onChange, keep = false) {
  const params = validated.Parameters || {};
  const grouped = new Set();
  const sections = (validated.ParameterGroups || []).map((g) => {
    const names = (g.parameters || []).filter((n) => params[n]);
    names.forEach((n) => grouped.add(n));
    return { label: g.label || "Parameters", description: g.description, names };
  });
  const rest = Object.keys(params).filter((n) => !grouped.has(n));
  if (rest.length) {
    sections.push({ label: sections.length ? "Other parameters" : "Parameters", names: rest });
  }
  const fields = new Map();
  host.replaceChildren(...sections.map((sec) => h("fieldset", {}, h("legend", {}, sec.label),
    sec.description ? h("p", { class: "muted" }, sec.description) : null,
    sec.names.map((name) => {
      const schema = params[name];
      // A hidden parameter's current value is not shown by the API: blank keeps it.
      const hiddenNow = keep && String(schema.NoEcho) === "true";
      const value = values.has(name) ? values.get(name) : (hiddenNow ? "" : defaultText(schema));
      const el = input(name, schema, value, keep);
      const problem = h("div", { class: "field-error", id: `param-error-${name}` });
      fields.set(name, { el, problem, schema });
      el.addEventListener("input", () => { values.set(name, el.value); check(name); onChange(); });
      el.addEventListener("change", () => { values.set(name, el.value); check(name); onChange(); });
      return h("label", { class: "param" },
        h("span", { class: "param-label" }, schema.Label || name,
          h("span", { class: "muted" },
            ` (${schema.Type}${schema.Default === undefined && !keep ? ", required" : ""})`)),
        el, schema.Description ? h("small", { class: "muted" }, schema.Description) : null, problem);
    }))));
  if (!Object.keys(params).length) host.replaceChildren(h("p", { class: "muted" }, "No parameters."));

  function check(only) {
    let ok = true;
    for (const [name, f] of fields) {
      const message = constraintError(name, f.schema, f.el.value, keep);
      if (!only || only === name) {
        f.problem.textContent = message;
        f.el.classList.toggle("invalid", Boolean(message));
      }
      if (message) ok = false;
    }
    return ok;
  }

  const read = () => {
    const out = {};
    for (const [name, f] of fields) {
      const typed = values.has(name);
      if (keep && f.el.value === "") continue;
      if (typed || f.el.value !== defaultText(f.schema)) out[name] = f.el.value;
    }
    return out;
  };
  for (const name of values.keys()) if (fields.has(name)) check(name);
  return { read, check };
}
