// The console's only way to the server: Hearth's public API v1 (the routes heatclient uses).

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// Heat's error body is {code, title, explanation, error: {type, message}}: show its message,
// else its title, else the status line; never nothing.
export async function errorMessage(resp) {
  let text = "";
  try { text = await resp.text(); } catch { /* the body is gone: the status line says it */ }
  try {
    const body = JSON.parse(text);
    const msg = (body.error && body.error.message) || body.title || body.explanation;
    if (msg) return String(msg);
  } catch { /* not JSON */ }
  const plain = text.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim();
  return plain.slice(0, 300) || `${resp.status} ${resp.statusText || "error"}`;
}

export class Api {
  constructor(session) {
    this.session = session; // {project, token?}
  }

  url(path) {
    return `/v1/${encodeURIComponent(this.session.project)}${path}`;
  }

  headers(extra = {}) {
    const h = { Accept: "application/json", ...extra };
    if (this.session.token) h["X-Auth-Token"] = this.session.token;
    return h;
  }

  async call(method, path, body) {
    let resp;
    const init = { method, headers: this.headers() };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    try {
      resp = await fetch(this.url(path), init);
    } catch (err) {
      throw new ApiError(0, `The Hearth API is not reachable: ${err.message}`);
    }
    if (!resp.ok) {
      const message = await errorMessage(resp);
      if (resp.status === 401 && this.onUnauthorized) this.onUnauthorized(message);
      throw new ApiError(resp.status, message);
    }
    const text = await resp.text();
    return text ? JSON.parse(text) : null;
  }

  get(path) { return this.call("GET", path); }
  post(path, body) { return this.call("POST", path, body); }
  put(path, body) { return this.call("PUT", path, body); }
  del(path) { return this.call("DELETE", path); }

  stackPath(stack) {
    return `/stacks/${encodeURIComponent(stack.stack_name)}/${encodeURIComponent(stack.id)}`;
  }
}

// A link of the API ("http://host/v1/p/stacks/name/id") as a path under /v1/{project}.
export function stackRefFromHref(href) {
  const m = /\/stacks\/([^/]+)\/([^/?#]+)/.exec(href || "");
  return m ? { stack_name: decodeURIComponent(m[1]), id: decodeURIComponent(m[2]) } : null;
}

export function link(obj, rel) {
  const found = (obj.links || []).find((l) => l.rel === rel);
  return found ? found.href : null;
}

export async function login(fields) {
  const resp = await fetch("/console/auth/tokens", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(fields),
  });
  if (!resp.ok) throw new ApiError(resp.status, await errorMessage(resp));
  return resp.json();
}

export async function settings() {
  const resp = await fetch("/console/settings", { headers: { Accept: "application/json" } });
  if (!resp.ok) throw new ApiError(resp.status, await errorMessage(resp));
  return resp.json();
}
