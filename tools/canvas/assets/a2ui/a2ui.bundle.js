// OpenClaw's A2UI v0.8 renderer (plain JavaScript, no dependencies).
//
// globalThis.openclawA2UI:
//   applyMessages(messages) -> {ok:true, surfaces:[ids]} | {ok:false, error}
//       messages: an array of v0.8 server-to-client messages (or one
//       message, or JSONL text). Every message is checked first; a bad one
//       applies none of them.
//   reset() -> {ok:true, surfaces:[]}   drops every surface
//   getSurfaces() -> [ids]              in the order they were created
//   getSurface(id) -> {id, root, rendering, components, dataModel} | null
//
// Messages: surfaceUpdate {surfaceId, components:[{id, component:{Type:{...}}}]}
// adds or replaces components; dataModelUpdate {surfaceId, path?, contents}
// writes the data model; beginRendering {surfaceId, root, styles?} starts
// drawing the surface from its root; deleteSurface {surfaceId} removes it.
// A surface is drawn only once it has begun rendering.
//
// Bound values are {literalString|literalNumber|literalBoolean|literalArray}
// or {path} (a path into the data model; relative inside a List template);
// with both, the literal initialises the path. A Button's action becomes a
// userAction sent through the canvas bridge (openclawSendUserAction) with
// its context resolved against the data model; the page answers with an
// openclaw:a2ui-action-status event {id, ok, error?}.
(() => {
  "use strict";
  if (globalThis.openclawA2UI && globalThis.openclawA2UI.version) return;

  const ACTIONS = ["surfaceUpdate", "dataModelUpdate", "beginRendering", "deleteSurface"];
  const MAX_DEPTH = 64;
  const surfaces = new Map();
  const pending = new Map(); // action id -> {button, timer}

  // ---- data model ---------------------------------------------------------

  function segments(path) {
    return String(path || "")
      .split("/")
      .filter((s) => s !== "" && s !== ".");
  }

  // absolute resolves path against the data context of a template item.
  function absolute(path, base) {
    const p = String(path);
    if (p.startsWith("/")) return "/" + segments(p).join("/");
    const out = segments(base || "/");
    for (const s of segments(p)) {
      if (s === "..") out.pop();
      else out.push(s);
    }
    return "/" + out.join("/");
  }

  function getAt(data, path) {
    let cur = data;
    for (const s of segments(path)) {
      if (cur === null || typeof cur !== "object" || !Object.prototype.hasOwnProperty.call(cur, s)) return undefined;
      cur = cur[s];
    }
    return cur;
  }

  function setAt(surface, path, value) {
    const segs = segments(path);
    if (segs.length === 0) {
      surface.data = value !== null && typeof value === "object" ? value : {};
      return;
    }
    let cur = surface.data;
    for (let i = 0; i < segs.length - 1; i++) {
      const s = segs[i];
      if (s === "__proto__" || s === "constructor" || s === "prototype") return;
      if (cur[s] === null || typeof cur[s] !== "object") cur[s] = {};
      cur = cur[s];
    }
    const last = segs[segs.length - 1];
    if (last === "__proto__" || last === "constructor" || last === "prototype") return;
    cur[last] = value;
  }

  // entryValue is a dataModelUpdate entry's value: valueString,
  // valueNumber, valueBoolean or valueMap (entries of the same kind).
  function entryValue(e) {
    if (Object.prototype.hasOwnProperty.call(e, "valueString")) return String(e.valueString);
    if (Object.prototype.hasOwnProperty.call(e, "valueNumber")) return Number(e.valueNumber);
    if (Object.prototype.hasOwnProperty.call(e, "valueBoolean")) return Boolean(e.valueBoolean);
    if (Array.isArray(e.valueMap)) return entriesObject(e.valueMap);
    if (Object.prototype.hasOwnProperty.call(e, "value")) return e.value;
    return null;
  }

  function entriesObject(entries) {
    const out = {};
    for (const e of entries) {
      if (!e || typeof e.key !== "string") continue;
      if (e.key === "__proto__" || e.key === "constructor" || e.key === "prototype") continue;
      out[e.key] = entryValue(e);
    }
    return out;
  }

  // resolve reads a bound value in a data context.
  function resolve(surface, bv, ctx) {
    if (bv === null || bv === undefined) return undefined;
    if (typeof bv !== "object") return bv;
    const literal = literalOf(bv);
    if (typeof bv.path === "string") {
      const p = absolute(bv.path, ctx.path);
      const v = getAt(surface.data, p);
      if (v === undefined && literal !== undefined) {
        setAt(surface, p, literal);
        return literal;
      }
      return v;
    }
    return literal;
  }

  function literalOf(bv) {
    for (const k of ["literalString", "literalNumber", "literalBoolean", "literalArray"]) {
      if (Object.prototype.hasOwnProperty.call(bv, k)) return bv[k];
    }
    return undefined;
  }

  function text(v) {
    if (v === undefined || v === null) return "";
    if (typeof v === "object") {
      try {
        return JSON.stringify(v);
      } catch (err) {
        return "";
      }
    }
    return String(v);
  }

  // ---- messages -----------------------------------------------------------

  function parseInput(input) {
    if (typeof input === "string") {
      const out = [];
      const lines = input.split(/\r?\n/);
      for (let i = 0; i < lines.length; i++) {
        const t = lines[i].trim();
        if (t === "") continue;
        try {
          out.push(JSON.parse(t));
        } catch (err) {
          throw new Error("line " + (i + 1) + ": " + err.message);
        }
      }
      return out;
    }
    if (Array.isArray(input)) return input;
    if (input && typeof input === "object") return [input];
    throw new Error("applyMessages takes an array of A2UI messages");
  }

  function check(msg, i) {
    const where = "message " + (i + 1) + ": ";
    if (!msg || typeof msg !== "object" || Array.isArray(msg)) throw new Error(where + "expected an object");
    if (Object.prototype.hasOwnProperty.call(msg, "createSurface") || msg.version !== undefined) {
      throw new Error(where + "A2UI v0.9 messages are not supported (this renderer speaks v0.8)");
    }
    const keys = ACTIONS.filter((k) => Object.prototype.hasOwnProperty.call(msg, k));
    if (keys.length !== 1) throw new Error(where + "expected exactly one of " + ACTIONS.join(", "));
    const body = msg[keys[0]];
    if (!body || typeof body !== "object" || Array.isArray(body)) throw new Error(where + keys[0] + " must be an object");
    if (typeof body.surfaceId !== "string" || body.surfaceId === "") throw new Error(where + keys[0] + ".surfaceId is required");
    switch (keys[0]) {
      case "surfaceUpdate":
        if (!Array.isArray(body.components)) throw new Error(where + "surfaceUpdate.components must be an array");
        body.components.forEach((c, j) => {
          if (!c || typeof c.id !== "string" || c.id === "") throw new Error(where + "components[" + j + "].id is required");
          const def = c.component;
          if (!def || typeof def !== "object" || Object.keys(def).length !== 1) {
            throw new Error(where + "components[" + j + "].component must name one component type");
          }
        });
        break;
      case "beginRendering":
        if (typeof body.root !== "string" || body.root === "") throw new Error(where + "beginRendering.root is required");
        break;
      case "dataModelUpdate":
        if (!Array.isArray(body.contents)) throw new Error(where + "dataModelUpdate.contents must be an array");
        break;
    }
    return [keys[0], body];
  }

  function surfaceFor(id) {
    let s = surfaces.get(id);
    if (!s) {
      s = { id, components: new Map(), data: {}, root: null, styles: null, el: null, bindings: [] };
      surfaces.set(id, s);
    }
    return s;
  }

  function applyMessages(input) {
    let checked;
    try {
      checked = parseInput(input).map(check);
    } catch (err) {
      return { ok: false, error: String(err && err.message ? err.message : err) };
    }
    const dirty = new Set();
    for (const [kind, body] of checked) {
      const id = body.surfaceId;
      switch (kind) {
        case "surfaceUpdate": {
          const s = surfaceFor(id);
          for (const c of body.components) s.components.set(c.id, c);
          dirty.add(id);
          break;
        }
        case "dataModelUpdate": {
          const s = surfaceFor(id);
          const value = entriesObject(body.contents);
          const path = typeof body.path === "string" ? body.path : "/";
          if (segments(path).length === 0) {
            s.data = value;
          } else {
            const cur = getAt(s.data, path);
            setAt(s, path, cur && typeof cur === "object" && !Array.isArray(cur) ? Object.assign(cur, value) : value);
          }
          dirty.add(id);
          break;
        }
        case "beginRendering": {
          const s = surfaceFor(id);
          s.root = body.root;
          s.styles = body.styles && typeof body.styles === "object" ? body.styles : null;
          dirty.add(id);
          break;
        }
        case "deleteSurface": {
          const s = surfaces.get(id);
          if (s && s.el) s.el.remove();
          surfaces.delete(id);
          dirty.delete(id);
          break;
        }
      }
    }
    for (const id of dirty) {
      const s = surfaces.get(id);
      if (s) render(s);
    }
    updateEmpty();
    return { ok: true, surfaces: getSurfaces() };
  }

  function reset() {
    for (const s of surfaces.values()) if (s.el) s.el.remove();
    surfaces.clear();
    updateEmpty();
    return { ok: true, surfaces: [] };
  }

  function getSurfaces() {
    return Array.from(surfaces.keys());
  }

  function getSurface(id) {
    const s = surfaces.get(id);
    if (!s) return null;
    return {
      id: s.id,
      root: s.root,
      rendering: s.root !== null,
      components: Array.from(s.components.keys()),
      dataModel: JSON.parse(JSON.stringify(s.data)),
    };
  }

  // ---- rendering ----------------------------------------------------------

  function mount() {
    let m = document.getElementById("openclaw-a2ui");
    if (!m) {
      m = document.createElement("main");
      m.id = "openclaw-a2ui";
      document.body.appendChild(m);
    }
    return m;
  }

  function updateEmpty() {
    const empty = document.getElementById("openclaw-a2ui-empty");
    if (!empty) return;
    let drawn = false;
    for (const s of surfaces.values()) if (s.root !== null) drawn = true;
    empty.hidden = drawn;
  }

  function render(s) {
    if (s.root === null) return;
    const focus = focusState();
    const el = document.createElement("section");
    el.className = "a2ui-surface";
    el.dataset.surfaceId = s.id;
    if (s.styles) {
      if (typeof s.styles.primaryColor === "string") el.style.setProperty("--a2ui-primary", s.styles.primaryColor);
      if (typeof s.styles.font === "string") el.style.fontFamily = s.styles.font;
    }
    s.bindings = [];
    el.appendChild(node(s, s.root, { path: "/" }, new Set(), 0));
    if (s.el && s.el.isConnected) s.el.replaceWith(el);
    else mount().appendChild(el);
    s.el = el;
    restoreFocus(focus);
  }

  // refresh re-reads every bound value after an input changed the model,
  // leaving the element being edited alone.
  function refresh(s, except) {
    for (const b of s.bindings) if (b.el !== except) b.update();
  }

  function focusState() {
    const a = document.activeElement;
    if (!a || !a.dataset || !a.dataset.a2uiKey) return null;
    const st = { key: a.dataset.a2uiKey };
    try {
      st.start = a.selectionStart;
      st.end = a.selectionEnd;
    } catch (err) {
      // not a text control
    }
    return st;
  }

  function restoreFocus(st) {
    if (!st) return;
    for (const el of document.querySelectorAll("[data-a2ui-key]")) {
      if (el.dataset.a2uiKey !== st.key) continue;
      el.focus();
      try {
        if (typeof st.start === "number") el.setSelectionRange(st.start, st.end);
      } catch (err) {
        // not a text control
      }
      return;
    }
  }

  function node(s, id, ctx, seen, depth) {
    const comp = s.components.get(id);
    if (!comp) return missing("Missing component: " + id);
    if (seen.has(id) || depth > MAX_DEPTH) return missing("Component cycle at: " + id);
    const type = Object.keys(comp.component)[0];
    const props = comp.component[type] || {};
    const draw = COMPONENTS[type];
    const inner = new Set(seen);
    inner.add(id);
    const child = (cid, cctx) => node(s, cid, cctx || ctx, inner, depth + 1);
    const el = draw ? draw(s, id, props, ctx, child) : missing("Unsupported component: " + type);
    el.classList.add("a2ui-c");
    el.dataset.component = type;
    el.dataset.componentId = id;
    if (typeof comp.weight === "number" && comp.weight > 0) el.style.flex = String(comp.weight);
    return el;
  }

  function missing(msg) {
    const el = document.createElement("div");
    el.className = "a2ui-missing";
    el.textContent = msg;
    return el;
  }

  function key(s, id, ctx) {
    return s.id + "|" + id + "|" + ctx.path;
  }

  // children draws {explicitList:[ids]} or {template:{componentId,
  // dataBinding}} (one copy per item of the list or map at dataBinding).
  function children(s, spec, ctx, child) {
    const out = [];
    if (!spec || typeof spec !== "object") return out;
    if (Array.isArray(spec.explicitList)) {
      for (const cid of spec.explicitList) if (typeof cid === "string") out.push(child(cid));
    } else if (spec.template && typeof spec.template.componentId === "string") {
      const base = absolute(spec.template.dataBinding || ".", ctx.path);
      const items = getAt(s.data, base);
      if (items && typeof items === "object") {
        for (const k of Object.keys(items)) {
          out.push(child(spec.template.componentId, { path: base + (base.endsWith("/") ? "" : "/") + k }));
        }
      }
    }
    return out;
  }

  const JUSTIFY = { start: "flex-start", center: "center", end: "flex-end", spaceBetween: "space-between", spaceAround: "space-around", spaceEvenly: "space-evenly" };
  const ALIGN = { start: "flex-start", center: "center", end: "flex-end", stretch: "stretch" };

  function box(kind, props, s, ctx, child) {
    const el = document.createElement("div");
    el.className = "a2ui-" + kind;
    if (JUSTIFY[props.distribution]) el.style.justifyContent = JUSTIFY[props.distribution];
    if (ALIGN[props.alignment]) el.style.alignItems = ALIGN[props.alignment];
    for (const c of children(s, props.children, ctx, child)) el.appendChild(c);
    return el;
  }

  function bindText(s, el, bv, ctx) {
    const update = () => {
      el.textContent = text(resolve(s, bv, ctx));
    };
    update();
    if (bv && typeof bv === "object" && typeof bv.path === "string") s.bindings.push({ el, update });
  }

  function safeURL(u) {
    const v = text(u).trim();
    if (v === "") return "";
    try {
      const url = new URL(v, location.href);
      if (url.protocol === "http:" || url.protocol === "https:" || url.protocol === "blob:") return url.href;
      if (url.protocol === "data:" && /^data:image\//i.test(v)) return v;
    } catch (err) {
      // not a URL
    }
    return "";
  }

  function toast(msg) {
    let t = document.getElementById("openclaw-a2ui-toast");
    if (!t) {
      t = document.createElement("div");
      t.id = "openclaw-a2ui-toast";
      t.setAttribute("role", "status");
      document.body.appendChild(t);
    }
    t.textContent = msg;
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => {
      t.hidden = true;
    }, 4000);
  }

  function newId() {
    const c = globalThis.crypto;
    if (c && typeof c.randomUUID === "function") return c.randomUUID();
    const b = c.getRandomValues(new Uint8Array(16));
    return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  }

  function sendAction(s, id, action, ctx, button) {
    const context = {};
    if (Array.isArray(action.context)) {
      for (const e of action.context) {
        if (e && typeof e.key === "string") context[e.key] = resolve(s, e.value, ctx);
      }
    }
    const userAction = {
      id: newId(),
      name: String(action.name || ""),
      surfaceId: s.id,
      sourceComponentId: id,
      context,
      timestamp: new Date().toISOString(),
    };
    globalThis.dispatchEvent(new CustomEvent("openclaw:a2ui-action", { detail: userAction }));
    const send = globalThis.openclawSendUserAction || (globalThis.OpenClaw && globalThis.OpenClaw.sendUserAction);
    const sent = typeof send === "function" && send(userAction) === true;
    if (!sent) {
      toast("Action " + userAction.name + " not delivered: no node is listening");
      return userAction;
    }
    button.setAttribute("aria-busy", "true");
    const timer = setTimeout(() => settle(userAction.id), 15000);
    pending.set(userAction.id, { button, timer });
    return userAction;
  }

  function settle(id, ok, error) {
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    clearTimeout(p.timer);
    p.button.removeAttribute("aria-busy");
    if (ok === false) toast("Action failed" + (error ? ": " + error : ""));
  }

  globalThis.addEventListener("openclaw:a2ui-action-status", (ev) => {
    const d = (ev && ev.detail) || {};
    if (typeof d.id === "string") settle(d.id, d.ok !== false, d.error);
  });

  function labelled(s, props, ctx, control) {
    const wrap = document.createElement("label");
    const cap = document.createElement("span");
    cap.className = "a2ui-label";
    bindText(s, cap, props.label, ctx);
    wrap.appendChild(cap);
    wrap.appendChild(control);
    return wrap;
  }

  const COMPONENTS = {
    Column: (s, id, p, ctx, child) => box("column", p, s, ctx, child),
    Row: (s, id, p, ctx, child) => box("row", p, s, ctx, child),
    List: (s, id, p, ctx, child) => {
      const el = document.createElement("div");
      el.className = "a2ui-list " + (p.direction === "horizontal" ? "a2ui-row" : "a2ui-column");
      el.setAttribute("role", "list");
      if (ALIGN[p.alignment]) el.style.alignItems = ALIGN[p.alignment];
      for (const c of children(s, p.children, ctx, child)) {
        const item = document.createElement("div");
        item.setAttribute("role", "listitem");
        item.appendChild(c);
        el.appendChild(item);
      }
      return el;
    },
    Text: (s, id, p, ctx) => {
      const hint = String(p.usageHint || "body");
      const tag = /^h[1-5]$/.test(hint) ? hint : hint === "caption" ? "small" : "p";
      const el = document.createElement(tag);
      el.className = "a2ui-text a2ui-" + hint;
      bindText(s, el, p.text, ctx);
      return el;
    },
    Image: (s, id, p, ctx) => {
      const el = document.createElement("img");
      el.className = "a2ui-image" + (p.usageHint ? " a2ui-image-" + String(p.usageHint) : "");
      const src = safeURL(resolve(s, p.url, ctx));
      if (src) el.src = src;
      el.alt = text(resolve(s, p.altText, ctx));
      if (["contain", "cover", "fill", "none", "scale-down"].includes(p.fit)) el.style.objectFit = p.fit;
      return el;
    },
    Icon: (s, id, p, ctx) => {
      const el = document.createElement("span");
      el.className = "a2ui-icon";
      bindText(s, el, p.name, ctx);
      return el;
    },
    Button: (s, id, p, ctx, child) => {
      const el = document.createElement("button");
      el.type = "button";
      el.className = "a2ui-button" + (p.primary ? " a2ui-primary" : "");
      el.dataset.a2uiKey = key(s, id, ctx);
      if (typeof p.child === "string") el.appendChild(child(p.child));
      else if (p.label !== undefined) bindText(s, el, p.label, ctx);
      el.addEventListener("click", () => {
        if (p.action && typeof p.action === "object") sendAction(s, id, p.action, ctx, el);
      });
      return el;
    },
    Card: (s, id, p, ctx, child) => {
      const el = document.createElement("div");
      el.className = "a2ui-card";
      if (typeof p.child === "string") el.appendChild(child(p.child));
      for (const c of children(s, p.children, ctx, child)) el.appendChild(c);
      return el;
    },
    TextField: (s, id, p, ctx) => {
      const kind = String(p.textFieldType || "shortText");
      const input = document.createElement(kind === "longText" ? "textarea" : "input");
      if (kind !== "longText") input.type = { number: "number", date: "date", obscured: "password" }[kind] || "text";
      input.className = "a2ui-input";
      input.dataset.a2uiKey = key(s, id, ctx);
      const bv = p.text;
      const update = () => {
        input.value = text(resolve(s, bv, ctx));
      };
      update();
      let re = null;
      if (typeof p.validationRegexp === "string") {
        try {
          re = new RegExp(p.validationRegexp);
        } catch (err) {
          re = null;
        }
      }
      const validate = () => {
        if (re) input.setAttribute("aria-invalid", re.test(input.value) ? "false" : "true");
      };
      validate();
      if (bv && typeof bv === "object" && typeof bv.path === "string") {
        s.bindings.push({ el: input, update });
        input.addEventListener("input", () => {
          const v = kind === "number" && input.value !== "" ? Number(input.value) : input.value;
          setAt(s, absolute(bv.path, ctx.path), v);
          validate();
          refresh(s, input);
        });
      } else {
        input.addEventListener("input", validate);
      }
      return labelled(s, p, ctx, input);
    },
    CheckBox: (s, id, p, ctx) => {
      const input = document.createElement("input");
      input.type = "checkbox";
      input.className = "a2ui-checkbox";
      input.dataset.a2uiKey = key(s, id, ctx);
      const bv = p.value;
      const update = () => {
        input.checked = resolve(s, bv, ctx) === true;
      };
      update();
      if (bv && typeof bv === "object" && typeof bv.path === "string") {
        s.bindings.push({ el: input, update });
        input.addEventListener("change", () => {
          setAt(s, absolute(bv.path, ctx.path), input.checked);
          refresh(s, input);
        });
      }
      const wrap = labelled(s, p, ctx, input);
      wrap.classList.add("a2ui-check");
      return wrap;
    },
    Slider: (s, id, p, ctx) => {
      const input = document.createElement("input");
      input.type = "range";
      input.className = "a2ui-slider";
      input.dataset.a2uiKey = key(s, id, ctx);
      if (typeof p.minValue === "number") input.min = String(p.minValue);
      if (typeof p.maxValue === "number") input.max = String(p.maxValue);
      const bv = p.value;
      const update = () => {
        const v = resolve(s, bv, ctx);
        if (typeof v === "number") input.value = String(v);
      };
      update();
      if (bv && typeof bv === "object" && typeof bv.path === "string") {
        s.bindings.push({ el: input, update });
        input.addEventListener("input", () => {
          setAt(s, absolute(bv.path, ctx.path), Number(input.value));
          refresh(s, input);
        });
      }
      return input;
    },
    Divider: (s, id, p) => {
      const el = document.createElement("hr");
      el.className = "a2ui-divider" + (p.axis === "vertical" ? " a2ui-vertical" : "");
      return el;
    },
    Tabs: (s, id, p, ctx, child) => {
      const el = document.createElement("div");
      el.className = "a2ui-tabs";
      const bar = document.createElement("div");
      bar.className = "a2ui-tabbar";
      bar.setAttribute("role", "tablist");
      const body = document.createElement("div");
      const items = Array.isArray(p.tabItems) ? p.tabItems : [];
      const show = (i) => {
        body.replaceChildren();
        bar.querySelectorAll("button").forEach((b, j) => b.setAttribute("aria-selected", String(i === j)));
        if (items[i] && typeof items[i].child === "string") body.appendChild(child(items[i].child));
      };
      items.forEach((item, i) => {
        const b = document.createElement("button");
        b.type = "button";
        b.setAttribute("role", "tab");
        bindText(s, b, item && item.title, ctx);
        b.addEventListener("click", () => show(i));
        bar.appendChild(b);
      });
      el.appendChild(bar);
      el.appendChild(body);
      show(0);
      return el;
    },
    Modal: (s, id, p, ctx, child) => {
      const el = document.createElement("details");
      el.className = "a2ui-modal";
      const sum = document.createElement("summary");
      if (typeof p.entryPointChild === "string") sum.appendChild(child(p.entryPointChild));
      el.appendChild(sum);
      if (typeof p.contentChild === "string") el.appendChild(child(p.contentChild));
      return el;
    },
  };

  globalThis.openclawA2UI = { version: "v0.8", applyMessages, reset, getSurfaces, getSurface };

  const boot = globalThis.openclawA2UIBoot;
  if (boot && Array.isArray(boot.messages)) applyMessages(boot.messages);
  updateEmpty();
  globalThis.dispatchEvent(new CustomEvent("openclaw:a2ui-ready"));
})();
