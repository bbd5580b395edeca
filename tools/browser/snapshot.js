// The snapshot, computed in the page in one evaluation: the tree the
// original prints (Playwright's aria snapshot: roles per ARIA in HTML,
// names per accname, the same states, the same distillation), refs bound
// to elements and handed out here, then rendered with the options (scope,
// compact, depth, interactive, links) and cut at maxChars. Same-origin
// frames are walked inline; a frame this document cannot read (another
// origin) is left as a placeholder line that the caller fills from that
// frame's own evaluation. Written for this project after the behaviour of
// the original's engine; nothing is taken from its source.
//
// Called as fn(opts, host1, root1, host2, root2, ...): the pairs are closed
// shadow roots the DevTools protocol found (a script cannot see them).
(function (opts, ...closed) {
  const REF = "data-openclaw-ref", NEXT = "data-openclaw-ref-next";
  const PH = "\u0000"; // placeholder lines start with it; page text never renders one raw
  const closedRoots = new Map();
  for (let i = 0; i + 1 < closed.length; i += 2) closedRoots.set(closed[i], closed[i + 1]);
  const closedSlot = new Map(); // light nodes a closed root's slots show (assignedSlot hides them)
  for (const root of closedRoots.values()) {
    for (const slot of root.querySelectorAll("slot")) {
      for (const n of slot.assignedNodes()) closedSlot.set(n, slot);
    }
  }
  const shadowOf = (el) => el.shadowRoot || closedRoots.get(el) || null;
  const slotOf = (n) => n.assignedSlot || closedSlot.get(n) || null;

  // ---- what this evaluation learnt of each element, in one record ----
  const recs = new Map();
  function R(el) {
    let r = recs.get(el);
    if (r === undefined) {
      const t = el.tagName;
      r = { tag: typeof t === "string" ? t.toUpperCase() : "", s: undefined, d: undefined, vis: undefined, hid: undefined,
        chain: undefined, role: undefined, name: undefined, box: undefined, pe: undefined, dis: undefined, seen: false };
      recs.set(el, r);
    }
    return r;
  }
  const tagOf = (el) => R(el).tag;
  const pseudoB = new Map(), pseudoA = new Map();
  let closedHint = false;

  // display is the computed display, or null without a computed style.
  function display(el) {
    const r = R(el);
    if (r.d === undefined) {
      const s = style(el);
      r.d = s ? s.display : null;
    }
    return r.d;
  }
  function style(el) {
    const r = R(el);
    if (r.s === undefined) {
      const w = el.ownerDocument && el.ownerDocument.defaultView;
      r.s = w ? w.getComputedStyle(el) : null;
    }
    return r.s;
  }

  // Pseudo-element content costs a style resolution per element; it is
  // read only where some stylesheet of the page could give one.
  const pseudoScopes = new Map();
  function scopeHasPseudo(root) {
    let v = pseudoScopes.get(root);
    if (v !== undefined) return v;
    v = false;
    const sheets = [...(root.styleSheets || []), ...(root.adoptedStyleSheets || [])];
    const scan = (rules) => {
      for (const r of rules) {
        if (r.selectorText !== undefined && /:(before|after)\b/i.test(r.selectorText)) return true;
        if (r.styleSheet && sheetHas(r.styleSheet)) return true;
        if (r.cssRules && r.cssRules.length && scan(r.cssRules)) return true;
      }
      return false;
    };
    const sheetHas = (sh) => {
      let rules;
      try { rules = sh.cssRules; } catch (e) { return true; } // unreadable (another origin): assume so
      return !!rules && scan(rules);
    };
    for (const sh of sheets) {
      if (sheetHas(sh)) { v = true; break; }
    }
    pseudoScopes.set(root, v);
    return v;
  }
  // Set as each document and shadow root is entered (a shadow root's
  // sheets before its host's own pseudo-elements: :host::before).
  let anyPseudo = false;
  const enterScope = (root) => { if (!anyPseudo && scopeHasPseudo(root)) anyPseudo = true; };

  function parentOrHost(el) {
    if (el.parentElement) return el.parentElement;
    const p = el.parentNode;
    if (p && p.nodeType === 11 && p.host) return p.host;
    return null;
  }
  // inside says whether e is el or lies in it, shadow trees included.
  function inside(e, el) {
    for (let i = 0; e && i < 10000; i++) {
      if (e === el) return true;
      e = parentOrHost(e);
    }
    return false;
  }
  function closestCross(el, css) {
    while (el) {
      const c = el.closest(css);
      if (c) return c;
      while (el.parentElement) el = el.parentElement;
      el = parentOrHost(el);
    }
    return null;
  }
  function rootOf(el) {
    let n = el;
    while (n.parentNode) n = n.parentNode;
    return n.nodeType === 11 || n.nodeType === 9 ? n : null;
  }
  function idRefs(el, ref) {
    if (!ref) return [];
    const root = rootOf(el);
    if (!root) return [];
    const out = [];
    for (const id of ref.split(" ")) {
      if (!id) continue;
      let e = null;
      try { e = root.querySelector("#" + CSS.escape(id)); } catch (x) { return []; }
      if (e && !out.includes(e)) out.push(e);
    }
    return out;
  }

  // ---- visibility ----
  function styleVisible(el) {
    const r = R(el);
    if (r.vis === undefined) {
      const s = style(el);
      r.vis = !s || (el.checkVisibility() && s.visibility === "visible");
    }
    return r.vis;
  }
  function textVisible(t) {
    const r = t.ownerDocument.createRange();
    r.selectNode(t);
    const b = r.getBoundingClientRect();
    return b.width > 0 && b.height > 0;
  }
  const IGNORED = new Set(["STYLE", "SCRIPT", "NOSCRIPT", "TEMPLATE"]);
  // the elements attachShadow accepts
  const SHADOW_HOSTS = /^(.+-.+|article|aside|blockquote|body|div|footer|h[1-6]|header|main|nav|p|section|span)$/;
  function hiddenForAria(el) {
    const r = R(el);
    if (r.hid === undefined) r.hid = computeHidden(el);
    return r.hid;
  }
  function computeHidden(el) {
    const tag = tagOf(el);
    if (IGNORED.has(tag)) return true;
    const disp = display(el);
    const slot = tag === "SLOT";
    if (disp === "contents" && !slot) {
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && !hiddenForAria(c)) return false;
        if (c.nodeType === 3 && textVisible(c)) return false;
      }
      return true;
    }
    const optionInSelect = tag === "OPTION" && !!el.closest("select");
    if (!optionInSelect && !slot && !styleVisible(el)) {
      if (disp !== null && disp !== "none" && !closedHint) {
        // A rendered parent that may host a shadow root, no box here and not
        // display:none: an element left out of its parent's shadow tree. With
        // no open root in sight, the parent hosts a closed one.
        const p = el.parentElement;
        if (p && SHADOW_HOSTS.test(p.localName) && !shadowOf(p) && p.checkVisibility()) closedHint = true;
      }
      return true;
    }
    return inHiddenChain(el);
  }
  function inHiddenChain(el) {
    const r = R(el);
    if (r.chain !== undefined) return r.chain;
    let h = false;
    const pe = el.parentElement;
    if (pe && shadowOf(pe) && !slotOf(el)) h = true;
    if (!h) {
      const d = display(el);
      h = d === null || d === "none" || (el.getAttribute("aria-hidden") || "").toLowerCase() === "true";
    }
    if (!h) {
      const p = parentOrHost(el);
      if (p) h = inHiddenChain(p);
    }
    r.chain = h;
    return h;
  }
  // box: {visible, inline, cursor}; visible (a box with an area) is read
  // only when asked.
  function box(el) {
    const r = R(el);
    let b = r.box;
    if (b) return b;
    const d = display(el);
    b = { inline: false, _c: undefined, _v: undefined, el };
    if (d === null) {
      b._v = true;
    } else if (d === "contents") {
      b._v = false;
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && boxVisible(box(c))) { b._v = true; break; }
        if (c.nodeType === 3 && textVisible(c)) { b._v = true; b.inline = true; break; }
      }
    } else if (!styleVisible(el)) {
      b._v = false;
    } else {
      b.inline = d === "inline";
    }
    r.box = b;
    return b;
  }
  function boxVisible(b) {
    if (b._v === undefined) {
      const r = b.el.getBoundingClientRect();
      b._v = r.width > 0 && r.height > 0;
    }
    return b._v;
  }
  function pointerEvents(el) {
    const chain = [];
    let res;
    for (let e = el; e; e = parentOrHost(e)) {
      const c = R(e).pe;
      if (c !== undefined) { res = c; break; }
      chain.push(e);
      const s = style(e);
      if (!s) { res = true; break; }
      if (s.pointerEvents) { res = s.pointerEvents !== "none"; break; }
    }
    if (res === undefined) res = true;
    for (const e of chain) R(e).pe = res;
    return res;
  }

  // ---- roles (ARIA in HTML) ----
  const VALID = new Set(("alert alertdialog application article banner blockquote button caption cell checkbox code columnheader " +
    "combobox complementary contentinfo definition deletion dialog directory document emphasis feed figure form generic grid " +
    "gridcell group heading img insertion link list listbox listitem log main mark marquee math meter menu menubar menuitem " +
    "menuitemcheckbox menuitemradio navigation none note option paragraph presentation progressbar radio radiogroup region row " +
    "rowgroup rowheader scrollbar search searchbox separator slider spinbutton status strong subscript superscript switch tab " +
    "table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem").split(" "));
  const LANDMARK_BLOCKERS = "article:not([role]), aside:not([role]), main:not([role]), nav:not([role]), section:not([role]), " +
    "[role=article], [role=complementary], [role=main], [role=navigation], [role=region]";
  const GLOBAL_ARIA = [["aria-atomic"], ["aria-busy"], ["aria-controls"], ["aria-current"], ["aria-describedby"], ["aria-details"],
    ["aria-dropeffect"], ["aria-flowto"], ["aria-grabbed"], ["aria-hidden"], ["aria-keyshortcuts"],
    ["aria-label", "caption code deletion emphasis generic insertion paragraph presentation strong subscript superscript"],
    ["aria-labelledby", "caption code deletion emphasis generic insertion paragraph presentation strong subscript superscript"],
    ["aria-live"], ["aria-owns"], ["aria-relevant"], ["aria-roledescription", "generic"]];
  function hasGlobalAria(el, role) {
    for (const [attr, prohibited] of GLOBAL_ARIA) {
      if (prohibited && prohibited.split(" ").includes(role || "")) continue;
      if (el.hasAttribute(attr)) return true;
    }
    return false;
  }
  const hasTabIndex = (el) => !Number.isNaN(Number(String(el.getAttribute("tabindex"))));
  function nativelyFocusable(el) {
    const t = tagOf(el);
    if (t === "BUTTON" || t === "DETAILS" || t === "SELECT" || t === "TEXTAREA") return true;
    if (t === "A" || t === "AREA") return el.hasAttribute("href");
    if (t === "INPUT") return !el.hidden;
    return false;
  }
  const focusable = (el) => !nativelyDisabled(el) && (nativelyFocusable(el) || hasTabIndex(el));
  const named = (el) => el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby");
  const INPUT_ROLES = { button: "button", checkbox: "checkbox", image: "button", number: "spinbutton", radio: "radio",
    range: "slider", reset: "button", submit: "button" };
  const SIMPLE_ROLES = { ARTICLE: "article", ASIDE: "complementary", BLOCKQUOTE: "blockquote", BUTTON: "button",
    CAPTION: "caption", CODE: "code", DATALIST: "listbox", DD: "definition", DEL: "deletion", DETAILS: "group", DFN: "term",
    DIALOG: "dialog", DT: "term", EM: "emphasis", FIELDSET: "group", FIGURE: "figure", H1: "heading", H2: "heading",
    H3: "heading", H4: "heading", H5: "heading", H6: "heading", HR: "separator", HTML: "document", INS: "insertion",
    LI: "listitem", MAIN: "main", MARK: "mark", MATH: "math", MENU: "list", METER: "meter", NAV: "navigation", OL: "list",
    OPTGROUP: "group", OPTION: "option", OUTPUT: "status", P: "paragraph", PROGRESS: "progressbar", SEARCH: "search",
    STRONG: "strong", SUB: "subscript", SUP: "superscript", SVG: "img", TABLE: "table", TBODY: "rowgroup",
    TEXTAREA: "textbox", TFOOT: "rowgroup", THEAD: "rowgroup", TIME: "time", TR: "row", UL: "list" };
  function implicitTagRole(el, t) {
    const r = SIMPLE_ROLES[t];
    if (r) return r;
    switch (t) {
      case "A": case "AREA": return el.hasAttribute("href") ? "link" : null;
      case "FOOTER": return closestCross(el, LANDMARK_BLOCKERS) ? null : "contentinfo";
      case "HEADER": return closestCross(el, LANDMARK_BLOCKERS) ? null : "banner";
      case "FORM": return named(el) ? "form" : null;
      case "SECTION": return named(el) ? "region" : null;
      case "IMG":
        return el.getAttribute("alt") === "" && !el.getAttribute("title") && !hasGlobalAria(el) && !hasTabIndex(el) ? "presentation" : "img";
      case "INPUT": {
        const type = String(el.type || "").toLowerCase();
        if (["email", "search", "tel", "text", "url", ""].includes(type)) {
          const list = idRefs(el, el.getAttribute("list"))[0];
          if (list && tagOf(list) === "DATALIST") return "combobox";
          return type === "search" ? "searchbox" : "textbox";
        }
        if (type === "hidden") return null;
        if (type === "file") return "button";
        return INPUT_ROLES[type] || "textbox";
      }
      case "SELECT": return el.hasAttribute("multiple") || el.size > 1 ? "listbox" : "combobox";
      case "TD": {
        const table = closestCross(el, "table");
        const tr = table ? explicitRole(table) : "";
        return tr === "grid" || tr === "treegrid" ? "gridcell" : "cell";
      }
      case "TH": return thRole(el);
    }
    return null;
  }
  function thRole(el) {
    const scope = el.getAttribute("scope");
    if (scope === "col" || scope === "colgroup") return "columnheader";
    if (scope === "row" || scope === "rowgroup") return "rowheader";
    const next = el.nextElementSibling, prev = el.previousElementSibling;
    const row = el.parentElement && tagOf(el.parentElement) === "TR" ? el.parentElement : null;
    if (!next && !prev) {
      if (row) {
        const table = closestCross(row, "table");
        if (table && table.rows.length <= 1) return null;
      }
      return "columnheader";
    }
    const isTH = (e) => !!e && tagOf(e) === "TH";
    const dataCell = (e) => !!e && tagOf(e) === "TD" && !!((e.textContent || "").trim() || e.children.length > 0);
    if (isTH(next) && isTH(prev)) return "columnheader";
    if (dataCell(next) || dataCell(prev)) return "rowheader";
    return "columnheader";
  }
  const PRESENTATION_PARENTS = { DD: ["DL", "DIV"], DIV: ["DL"], DT: ["DL", "DIV"], LI: ["OL", "UL"], TBODY: ["TABLE"],
    TD: ["TR"], TFOOT: ["TABLE"], TH: ["TR"], THEAD: ["TABLE"], TR: ["THEAD", "TBODY", "TFOOT", "TABLE"] };
  function implicitRole(el) {
    const r = implicitTagRole(el, tagOf(el)) || "";
    if (!r) return null;
    for (let a = el; a;) {
      const p = parentOrHost(a);
      const parents = PRESENTATION_PARENTS[tagOf(a)];
      if (!parents || !p || !parents.includes(tagOf(p))) break;
      const pr = explicitRole(p);
      if ((pr === "none" || pr === "presentation") && !conflictResolved(p, pr)) return pr;
      a = p;
    }
    return r;
  }
  function explicitRole(el) {
    const attr = el.getAttribute("role");
    if (!attr) return null;
    for (const r of attr.split(" ")) {
      const t = r.trim();
      if (VALID.has(t)) return t;
    }
    return null;
  }
  const conflictResolved = (el, role) => hasGlobalAria(el, role) || focusable(el);
  function roleOf(el) {
    const rec = R(el);
    if (rec.role !== undefined) return rec.role;
    let r;
    const ex = explicitRole(el);
    if (!ex) r = implicitRole(el);
    else if (ex === "none" || ex === "presentation") {
      const im = implicitRole(el);
      r = conflictResolved(el, im) ? im : ex;
    } else r = ex;
    rec.role = r;
    return r;
  }

  // ---- states ----
  const CHECKED_ROLES = new Set(["checkbox", "menuitemcheckbox", "option", "radio", "switch", "menuitemradio", "treeitem"]);
  const DISABLED_ROLES = new Set(("application button composite gridcell group input link menuitem scrollbar separator tab checkbox " +
    "columnheader combobox grid listbox menu menubar menuitemcheckbox menuitemradio option radio radiogroup row rowheader search " +
    "select slider spinbutton switch tablist textbox toolbar tree treegrid treeitem").split(" "));
  const EXPANDED_ROLES = new Set(("application button checkbox combobox gridcell link listbox menuitem row rowheader tab treeitem " +
    "columnheader menuitemcheckbox menuitemradio switch").split(" "));
  const INVALID_ROLES = new Set(("application checkbox columnheader combobox gridcell listbox radiogroup rowheader searchbox slider " +
    "spinbutton switch textbox tree").split(" "));
  const LEVEL_ROLES = new Set(["heading", "listitem", "row", "treeitem"]);
  const SELECTED_ROLES = new Set(["gridcell", "option", "row", "tab", "rowheader", "columnheader", "treeitem"]);
  function checkedOf(el) {
    const t = tagOf(el);
    if (t === "INPUT" && el.indeterminate) return "mixed";
    if (t === "INPUT" && (el.type === "checkbox" || el.type === "radio")) return el.checked;
    if (CHECKED_ROLES.has(roleOf(el) || "")) {
      const c = el.getAttribute("aria-checked");
      if (c === "true") return true;
      if (c === "mixed") return "mixed";
    }
    return false;
  }
  function nativelyDisabled(el) {
    const t = tagOf(el);
    if (!["BUTTON", "INPUT", "SELECT", "TEXTAREA", "OPTION", "OPTGROUP"].includes(t)) return false;
    if (el.hasAttribute("disabled")) return true;
    if (t === "OPTION" && el.closest("OPTGROUP[DISABLED]")) return true;
    const fs = el.closest("FIELDSET[DISABLED]");
    if (!fs) return false;
    const legend = fs.querySelector(":scope > LEGEND");
    return !legend || !legend.contains(el);
  }
  function ariaDisabledChain(el) {
    const rec = R(el);
    if (rec.dis !== undefined) return rec.dis;
    let r;
    const a = (el.getAttribute("aria-disabled") || "").toLowerCase();
    if (a === "true") r = true;
    else if (a === "false") r = false;
    else {
      const p = parentOrHost(el);
      r = p ? ariaDisabledChain(p) : false;
    }
    rec.dis = r;
    return r;
  }
  const disabledOf = (el) => nativelyDisabled(el) || (DISABLED_ROLES.has(roleOf(el) || "") && ariaDisabledChain(el));
  function expandedOf(el) {
    if (tagOf(el) === "DETAILS") return el.open;
    if (EXPANDED_ROLES.has(roleOf(el) || "")) return el.getAttribute("aria-expanded") === "true";
    return false;
  }
  function invalidOf(el) {
    const a = el.getAttribute("aria-invalid");
    if (!a || a.trim() === "" || a.toLocaleLowerCase() === "false") return false;
    if (a === "true" || a === "grammar" || a === "spelling") return a === "true" ? true : a;
    return true;
  }
  function levelOf(el) {
    const native = { H1: 1, H2: 2, H3: 3, H4: 4, H5: 5, H6: 6 }[tagOf(el)];
    if (native) return native;
    if (LEVEL_ROLES.has(roleOf(el) || "")) {
      const a = el.getAttribute("aria-level");
      const v = a === null ? NaN : Number(a);
      if (Number.isInteger(v) && v >= 1) return v;
    }
    return 0;
  }
  function pressedOf(el) {
    if (roleOf(el) === "button") {
      const p = el.getAttribute("aria-pressed");
      if (p === "true") return true;
      if (p === "mixed") return "mixed";
    }
    return false;
  }
  function selectedOf(el) {
    if (tagOf(el) === "OPTION") return el.selected;
    if (SELECTED_ROLES.has(roleOf(el) || "")) return (el.getAttribute("aria-selected") || "").toLowerCase() === "true";
    return false;
  }

  // ---- CSS generated content ----
  function parseContent(el, value, pseudo) {
    // Strings and attr(x), optionally after "/" (alternative text).
    const toks = [];
    let i = 0;
    const n = value.length;
    while (i < n) {
      const c = value[i];
      if (c === " " || c === "\t" || c === "\n") { i++; continue; }
      if (c === '"' || c === "'") {
        let s = "";
        i++;
        while (i < n && value[i] !== c) {
          if (value[i] === "\\" && i + 1 < n) {
            const m = /^[0-9a-fA-F]{1,6} ?/.exec(value.slice(i + 1, i + 8));
            if (m) { s += String.fromCodePoint(parseInt(m[0], 16)); i += 1 + m[0].length; continue; }
            s += value[i + 1];
            i += 2;
            continue;
          }
          s += value[i++];
        }
        i++;
        toks.push({ t: "s", v: s });
        continue;
      }
      if (c === "/") { toks.push({ t: "/" }); i++; continue; }
      const m = /^attr\(\s*([-\w]+)\s*\)/i.exec(value.slice(i));
      if (m) { toks.push({ t: "a", v: m[1] }); i += m[0].length; continue; }
      return undefined; // counters, quotes, url(), ...
    }
    let from = 0;
    const d = toks.findIndex((t) => t.t === "/");
    if (d !== -1) from = d + 1;
    else if (!pseudo) return undefined;
    let out = "";
    for (const t of toks.slice(from)) {
      if (t.t === "s") out += t.v;
      else if (t.t === "a") out += el.getAttribute(t.v) || "";
      else return undefined;
    }
    return out;
  }
  function cssContent(el, pseudo) {
    const cache = pseudo === "::before" ? pseudoB : pseudo === "::after" ? pseudoA : null;
    if (cache && cache.has(el)) return cache.get(el);
    let content;
    if (!pseudo || anyPseudo) {
      const w = el.ownerDocument && el.ownerDocument.defaultView;
      const s = pseudo ? (w ? w.getComputedStyle(el, pseudo) : null) : style(el);
      if (s) {
        const v = s.content;
        if (v && v !== "none" && v !== "normal" && s.display !== "none" && s.visibility !== "hidden") content = parseContent(el, v, !!pseudo);
        if (pseudo && content !== undefined && (s.display || "inline") !== "inline") content = " " + content + " ";
      }
    }
    if (cache) cache.set(el, content);
    return content;
  }

  // ---- accessible names (accname) ----
  const NO_NAME = new Set("caption code definition deletion emphasis generic insertion mark paragraph presentation strong subscript suggestion superscript term time".split(" "));
  const NAME_FROM_CONTENT = new Set("button cell checkbox columnheader gridcell heading link menuitem menuitemcheckbox menuitemradio option radio row rowheader switch tab tooltip treeitem".split(" "));
  const NAME_FROM_CONTENT_INSIDE = new Set(["", "caption", "code", "contentinfo", "definition", "deletion", "emphasis", "insertion", "list",
    "listitem", "mark", "none", "paragraph", "presentation", "region", "row", "rowgroup", "section", "strong", "subscript",
    "superscript", "table", "term", "time"]);
  const EMPTY = () => ({ text: "" });
  const comp = (text, el) => ({ text: text || "", els: text ? [el] : undefined });
  function join(parts, sep) {
    const els = [];
    for (const p of parts) if (p.els) els.push(...p.els);
    return { text: parts.map((p) => p.text).join(sep), els };
  }
  const flat = (s) => !s ? "" : s.indexOf("\u00a0") < 0 ? s.replace(/\r\n/g, "\n").replace(/[\u200b\u00ad]/g, "").replace(/\s\s*/g, " ").trim() : s.split("\u00a0").map((c) => c.replace(/\r\n/g, "\n").replace(/[\u200b\u00ad]/g, "").replace(/\s\s*/g, " ")).join("\u00a0").trim();
  function accName(el) {
    const rec = R(el);
    if (rec.name) return rec.name;
    let n;
    if (NO_NAME.has(roleOf(el) || "")) n = { text: "", els: [] };
    else {
      const r = alt(el, { visited: new Set(), target: "self" });
      n = { text: flat(r.text), els: r.els || [] };
    }
    rec.name = n;
    return n;
  }
  function labelsName(labels, o) {
    return join([...labels].map((l) => alt(l, { visited: o.visited, label: { hidden: hiddenForAria(l) } })).filter((x) => !!x.text), " ");
  }
  // alt is accname's text alternative of el; o says how it is reached:
  // target "self" (the named element) or "descendant", label / labelledBy /
  // describedBy / nativeAlt {hidden} when through such a reference.
  function alt(el, o) {
    if (o.visited.has(el)) return EMPTY();
    const child = Object.assign({}, o, { target: o.target === "self" ? "descendant" : o.target });
    const viaHidden = (o.labelledBy && o.labelledBy.hidden) || (o.nativeAlt && o.nativeAlt.hidden) || (o.label && o.label.hidden);
    if (IGNORED.has(tagOf(el)) || (!viaHidden && hiddenForAria(el))) {
      o.visited.add(el);
      return EMPTY();
    }
    const lbAttr = el.getAttribute("aria-labelledby");
    let labelledBy = lbAttr === null ? null : idRefs(el, lbAttr);
    if (labelledBy && !labelledBy.length) labelledBy = null;
    if (!o.labelledBy) {
      const r = join((labelledBy || []).map((ref) => alt(ref, { visited: o.visited, labelledBy: { hidden: hiddenForAria(ref) } })), " ");
      if (r.text) return r;
    }
    const role = roleOf(el) || "";
    const tag = tagOf(el);
    const value = () => el.value;
    if (o.label || o.labelledBy || o.target === "descendant") {
      const ownLabel = [...(el.labels || [])].includes(el);
      const ownLB = (labelledBy || []).includes(el);
      if (!ownLabel && !ownLB) {
        if (role === "textbox" || role === "searchbox") {
          o.visited.add(el);
          return comp(tag === "INPUT" || tag === "TEXTAREA" ? value() : el.textContent, el);
        }
        if (role === "combobox" || role === "listbox") {
          o.visited.add(el);
          let sel;
          if (tag === "SELECT") {
            sel = [...el.selectedOptions];
            if (!sel.length && el.options.length) sel.push(el.options[0]);
          } else {
            const inOwned = (root, css) => {
              const out = [...root.querySelectorAll(css)];
              for (const ow of idRefs(root, root.getAttribute("aria-owns"))) {
                if (ow.matches(css)) out.push(ow);
                out.push(...ow.querySelectorAll(css));
              }
              return out;
            };
            const lb = role === "combobox" ? inOwned(el, "*").find((e) => roleOf(e) === "listbox") : el;
            sel = lb ? inOwned(lb, '[aria-selected="true"]').filter((e) => roleOf(e) === "option") : [];
          }
          if (!sel.length && tag === "INPUT") return comp(value(), el);
          return join(sel.map((x) => alt(x, child)), " ");
        }
        if (["progressbar", "scrollbar", "slider", "spinbutton", "meter"].includes(role)) {
          o.visited.add(el);
          if (el.hasAttribute("aria-valuetext")) return comp(el.getAttribute("aria-valuetext"), el);
          if (el.hasAttribute("aria-valuenow")) return comp(el.getAttribute("aria-valuenow"), el);
          return comp(el.getAttribute("value"), el);
        }
        if (role === "menu") {
          o.visited.add(el);
          return EMPTY();
        }
      }
    }
    const label = el.getAttribute("aria-label") || "";
    if (label.trim()) {
      o.visited.add(el);
      return comp(label, el);
    }
    if (role !== "presentation" && role !== "none") {
      const type = tag === "INPUT" ? el.type : "";
      if (tag === "INPUT" && (type === "button" || type === "submit" || type === "reset")) {
        o.visited.add(el);
        const v = el.value || "";
        if (v.trim()) return comp(v, el);
        if (type === "submit") return comp("Submit", el);
        if (type === "reset") return comp("Reset", el);
        return comp(el.getAttribute("title") || "", el);
      }
      if (tag === "INPUT" && (type === "file" || type === "image")) {
        o.visited.add(el);
        const labels = el.labels || [];
        if (labels.length && !o.labelledBy) return labelsName(labels, o);
        if (type === "file") return comp("Choose File", el);
        const a = el.getAttribute("alt") || "";
        if (a.trim()) return comp(a, el);
        const t = el.getAttribute("title") || "";
        if (t.trim()) return comp(t, el);
        return comp("Submit", el);
      }
      if (!labelledBy && (tag === "BUTTON" || tag === "OUTPUT")) {
        o.visited.add(el);
        const labels = el.labels || [];
        if (labels.length) return labelsName(labels, o);
        if (tag === "OUTPUT") return comp(el.getAttribute("title") || "", el);
      }
      if (!labelledBy && ["TEXTAREA", "SELECT", "INPUT", "METER", "PROGRESS"].includes(tag)) {
        o.visited.add(el);
        const labels = el.labels || [];
        if (labels.length) return labelsName(labels, o);
        const usePh = (tag === "INPUT" && ["text", "password", "number", "search", "tel", "email", "url"].includes(type)) || tag === "TEXTAREA";
        const title = el.getAttribute("title") || "";
        if (!usePh || title) return comp(title, el);
        return comp(el.getAttribute("placeholder") || "", el);
      }
      const captioned = { FIELDSET: "LEGEND", FIGURE: "FIGCAPTION" }[tag];
      if (!labelledBy && captioned) {
        o.visited.add(el);
        for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
          if (tagOf(c) === captioned) return alt(c, Object.assign({}, child, { nativeAlt: { hidden: hiddenForAria(c) } }));
        }
        return comp(el.getAttribute("title") || "", el);
      }
      if (tag === "IMG" || tag === "AREA") {
        o.visited.add(el);
        const a = el.getAttribute("alt") || "";
        if (a.trim()) return comp(a, el);
        return comp(el.getAttribute("title") || "", el);
      }
      if (tag === "TABLE") {
        o.visited.add(el);
        for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
          if (tagOf(c) === "CAPTION") return alt(c, Object.assign({}, child, { nativeAlt: { hidden: hiddenForAria(c) } }));
        }
        const s = el.getAttribute("summary") || "";
        if (s) return comp(s, el);
      }
      if (tag === "SVG" || el.ownerSVGElement) {
        o.visited.add(el);
        for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
          if (tagOf(c) === "TITLE" && c.ownerSVGElement) return alt(c, Object.assign({}, child, { labelledBy: { hidden: hiddenForAria(c) } }));
        }
      }
      if (el.ownerSVGElement && tag === "A") {
        const t = el.getAttribute("xlink:title") || "";
        if (t.trim()) {
          o.visited.add(el);
          return comp(t, el);
        }
      }
    }
    const summary = tag === "SUMMARY" && role !== "presentation" && role !== "none";
    if (NAME_FROM_CONTENT.has(role) || (o.target === "descendant" && NAME_FROM_CONTENT_INSIDE.has(role)) || summary ||
      o.labelledBy || o.describedBy || o.label || o.nativeAlt) {
      o.visited.add(el);
      const r = contentText(el, child);
      const t = o.target === "self" ? r.text.trim() : r.text;
      if (t) {
        r.els.push(el);
        return r;
      }
    }
    if ((role !== "presentation" && role !== "none") || tag === "IFRAME" || tag === "FRAME") {
      o.visited.add(el);
      const t = el.getAttribute("title") || "";
      if (t.trim()) return comp(t, el);
    }
    o.visited.add(el);
    return EMPTY();
  }
  function contentText(el, o) {
    const toks = [];
    const els = [];
    const visit = (n, skipSlotted) => {
      if (skipSlotted && slotOf(n)) return;
      if (n.nodeType === 1) {
        const c = alt(n, o);
        let t = c.text;
        if (c.els) els.push(...c.els);
        if ((display(n) || "inline") !== "inline" || n.nodeName === "BR") t = " " + t + " ";
        toks.push(t);
      } else if (n.nodeType === 3) {
        toks.push(n.textContent || "");
      }
    };
    toks.push(cssContent(el, "::before") || "");
    const own = cssContent(el);
    if (own !== undefined) toks.push(own);
    else {
      const assigned = el.nodeName === "SLOT" ? el.assignedNodes() : [];
      if (assigned.length) {
        for (const c of assigned) visit(c, false);
      } else {
        for (let c = el.firstChild; c; c = c.nextSibling) visit(c, true);
        const sr = shadowOf(el);
        if (sr) for (let c = sr.firstChild; c; c = c.nextSibling) visit(c, true);
        for (const ow of idRefs(el, el.getAttribute("aria-owns"))) visit(ow, true);
      }
    }
    toks.push(cssContent(el, "::after") || "");
    return { text: toks.join(""), els };
  }

  // ---- the tree ----
  const ws = (s) => s.replace(/[\u200b\u00ad]/g, "").trim().replace(/\s+/g, " ");
  const truncData = (u) => {
    if (!u.startsWith("data:")) return u;
    const c = u.indexOf(",");
    return c === -1 ? u : u.slice(0, c + 1) + "\u2026";
  };
  function deepActive(doc) {
    if (!doc.hasFocus()) return null;
    let a = doc.activeElement;
    for (let i = 0; a && i < 100; i++) {
      const sr = shadowOf(a);
      if (!sr || !sr.activeElement) break;
      a = sr.activeElement;
    }
    return a;
  }

  // A node: {role, name, kids: [node | string], props, el, pw (lazy: the
  // original gives it a ref), states...}. Strings are text.
  function pwRef(n) {
    if (n._pw === undefined) n._pw = !!n.el && boxVisible(n.box) && (n.role === "iframe" || pointerEvents(n.el));
    return n._pw;
  }
  // buildDoc builds the tree of rootEl's document and cleans it up as it
  // goes, the way the original does (see exit). With stop (the cut at
  // maxChars, for the tab's own document), it stops walking once the lines
  // made so far surely fill the cut and no open ancestor's line can still
  // change: what follows would be cut anyway.
  function buildDoc(doc, rootEl, stop) {
    const active = deepActive(doc);
    const visited = new Set();
    const byEl = new Map(); // element -> node (elements that made a node)
    const root = { role: "fragment", name: "", kids: [], props: {}, el: null };
    const stack = [root]; // the ancestors of what is being built
    const pending = new Set(); // elements named by an enclosing node's name, not printed yet
    let stopped = false, made = 0;
    const maxDepth = opts.depth === null || opts.depth === undefined ? 100 : opts.depth;
    const visit = (parent, n, parentVisible) => {
      if (stopped || visited.has(n)) return;
      visited.add(n);
      if (n.nodeType === 3) {
        if (parentVisible && n.nodeValue && parent.role !== "textbox") parent.kids.push(n.nodeValue);
        return;
      }
      if (n.nodeType !== 1) return;
      const el = n;
      const ariaVisible = !hiddenForAria(el);
      const visible = ariaVisible || boxVisible(box(el));
      const owned = [];
      if (el.hasAttribute("aria-owns")) {
        for (const id of el.getAttribute("aria-owns").split(/\s+/)) {
          const o = doc.getElementById(id);
          if (o) owned.push(o);
        }
      }
      if (!closedHint && !el.shadowRoot && el.localName.includes("-") && !closedRoots.has(el) && ariaVisible) {
        const w = doc.defaultView;
        if (w && w.customElements && w.customElements.get(el.localName)) closedHint = true;
      }
      const node = visible ? toNode(el, active) : null;
      if (!node) {
        processEl(parent, el, owned, visible, visit);
        return;
      }
      if ((el.getAttribute("aria-hidden") || "").toLowerCase() === "true") node.props["aria-hidden"] = "true";
      byEl.set(el, node);
      // enter: the elements its name came from are pending until printed
      const els = node._els;
      if (els && els.length && pwRef(node)) {
        for (const e of els) if (e !== el && (byEl.has(e) || inside(e, el))) pending.add(e);
      }
      stack.push(node);
      processEl(node, el, owned, visible, visit);
      stack.pop();
      if (pending.size && pending.has(el) && pwRef(node) && !leafGeneric(node)) pending.delete(el);
      if (els && els.length) {
        // the nodes made so far by the elements its name came from
        const cs = [];
        for (const e of els) {
          const c = byEl.get(e);
          if (c && c !== node && !cs.includes(c)) cs.push(c);
        }
        if (cs.length) node._cs = cs;
      }
      const r = exit(node, parent);
      if (r === "remove") return;
      if (r === "unwrap") { parent.kids.push(...node.kids); return; }
      parent.kids.push(node);
      if (stop) {
        made += lineSize(node, stack.length - 1, maxDepth);
        if (made > opts.maxChars && settled(stack)) stopped = true;
      }
    };
    const leafGeneric = (n) => n.role === "generic" && n.kids.every((k) => typeof k === "string");
    const clickRoot = (n) => pointer(n) && pwRef(n) && !stack.some((a) => a.el && pointer(a) && pwRef(a));
    const contribNodes = (n) => {
      const out = [];
      for (const c of n._cs) if (pwRef(c)) out.push(c);
      return out;
    };
    // exit is the original's clean-up of a finished node, in its order:
    // merge text, drop nameless images, drop names their content repeats,
    // inline a lone text into a generic, drop a generic repeating its
    // parent's name, unwrap unnamed single-child generics.
    const exit = (n, parent) => {
      mergeText(n);
      if (n.kids.length === 1 && n.kids[0] === n.name) n.kids = [];
      if (n.role === "img" && !n.name && !n.kids.length && !clickRoot(n)) return "remove";
      if (n._cs && pwRef(n)) {
        const cs = contribNodes(n);
        if (cs.length) {
          if (cs.every((c) => !pending.has(c.el))) n.name = "";
          else for (const c of cs) pending.delete(c.el);
        }
      }
      if (n.role === "generic" && !Object.keys(n.props).length && n.kids.length === 1) {
        const c = n.kids[0];
        if (typeof c !== "string" && c.role === "generic" && !c.name && !c.active && !Object.keys(c.props).length &&
          c.kids.length === 1 && typeof c.kids[0] === "string") n.kids = [c.kids[0]];
      }
      if (parent && parent.name && n.role === "generic" && !n.active && !Object.keys(n.props).length) {
        const single = n.kids.length === 1 && typeof n.kids[0] === "string" ? n.kids[0] : undefined;
        const text = n.name ? (n.kids.length ? undefined : n.name) : single;
        if (text && text === parent.name) {
          if (pwRef(n)) pending.add(n.el);
          return "remove";
        }
      }
      if (n.role === "generic" && !n.name && n.kids.length <= 1 && n.kids.every((k) => typeof k !== "string" && pwRef(k))) {
        if (!n.kids.length && clickRoot(n)) return undefined;
        return "unwrap";
      }
      return undefined;
    };
    visit(root, rootEl, true);
    mergeText(root);
    return root.kids;
  }
  // lineSize is at most the bytes a finished node's own lines take in the
  // output (without indentation, refs counted short): 0 when a later step
  // may still drop or move its line.
  function lineSize(n, depth, maxDepth) {
    if (n.role === "option" || depth > maxDepth) return 0;
    // "- role" and " [ref=eN]" take 11 bytes and the role; a name at least
    // its length and 3 more (a space, two quotes).
    const head = n.role.length + 11 + (n.name ? n.name.length + 3 : 0);
    if (opts.interactive) return INTERACTIVE.has(n.role) ? head : 0;
    if (n.role === "generic" && !n.name && n.kids.length === 1 && typeof n.kids[0] === "string") return 0;
    let size = opts.compact && STRUCTURAL.has(n.role) && !n.name ? 0 : head;
    const allText = n.kids.every((k) => typeof k === "string");
    if (allText || depth < maxDepth) for (const k of n.kids) if (typeof k === "string") size += k.length + 2;
    if (n.props.url !== undefined) size += n.props.url.length + 8;
    if (n.props.placeholder !== undefined) size += n.props.placeholder.length + 16;
    return size;
  }
  // settled says whether no open ancestor's line can change with more
  // content: none takes its name from elements (they might be printed
  // later), and each unnamed generic already has two children (it is not
  // unwrapped; the open child is one of them).
  function settled(stack) {
    for (let i = 1; i < stack.length; i++) {
      const a = stack[i];
      if (a._els && a._els.some((e) => e !== a.el) && pwRef(a)) return false;
      if (a.role === "generic" && !a.name) {
        let kids = i < stack.length - 1 ? 1 : 0;
        for (const k of a.kids) if (typeof k !== "string" || k.trim()) kids++;
        if (kids < 2) return false;
      }
    }
    return true;
  }
  function toNode(el, active) {
    const tag = tagOf(el);
    const isActive = el === active;
    if (tag === "IFRAME" || tag === "FRAME") {
      return { role: "iframe", name: "", kids: [], props: {}, el, box: box(el), active: isActive };
    }
    const role = roleOf(el) || "generic";
    if (role === "presentation" || role === "none") return null;
    const nm = accName(el);
    const b = box(el);
    if (role === "generic" && b.inline && el.childNodes.length === 1 && el.childNodes[0].nodeType === 3) return null;
    const n = { role, name: ws(nm.text), kids: [], props: {}, el, box: b, active: isActive, _els: nm.els };
    if (CHECKED_ROLES.has(role)) n.checked = checkedOf(el);
    if (DISABLED_ROLES.has(role)) n.disabled = disabledOf(el);
    if (EXPANDED_ROLES.has(role)) n.expanded = expandedOf(el);
    if (INVALID_ROLES.has(role)) n.invalid = invalidOf(el);
    if (LEVEL_ROLES.has(role)) n.level = levelOf(el);
    if (role === "button") n.pressed = pressedOf(el);
    if (SELECTED_ROLES.has(role)) n.selected = selectedOf(el);
    if (tag === "INPUT" || tag === "TEXTAREA") {
      const type = tag === "INPUT" ? el.type : "";
      if (type !== "checkbox" && type !== "radio" && type !== "file") {
        // A password's value is masked, one bullet per character.
        n.kids = [type === "password" ? "\u2022".repeat([...el.value].length) : el.value];
      }
    }
    return n;
  }
  function processEl(node, el, owned, visible, visit) {
    const tag = el.nodeName;
    const block = (display(el) || "inline") !== "inline" || tag === "BR";
    const kids = node.kids;
    if (block) kids.push(" ");
    const sr = shadowOf(el);
    if (sr) enterScope(sr);
    if (anyPseudo) {
      const b = cssContent(el, "::before");
      if (b) kids.push(b);
    }
    const assigned = tag === "SLOT" ? el.assignedNodes() : null;
    if (assigned && assigned.length) {
      for (const c of assigned) visit(node, c, visible);
    } else if (!sr) {
      for (let c = el.firstChild; c; c = c.nextSibling) visit(node, c, visible);
    } else {
      if (!closedRoots.has(el)) {
        for (let c = el.firstChild; c; c = c.nextSibling) if (!c.assignedSlot) visit(node, c, visible);
      }
      for (let c = sr.firstChild; c; c = c.nextSibling) visit(node, c, visible);
    }
    for (const c of owned) visit(node, c, visible);
    if (anyPseudo) {
      const a = cssContent(el, "::after");
      if (a) kids.push(a);
    }
    if (block) kids.push(" ");
    if (node.kids.length === 1 && node.name === node.kids[0]) node.kids = [];
    if (node.role === "link" && el.hasAttribute("href")) node.props.url = truncData(el.getAttribute("href"));
    if (node.role === "textbox" && el.hasAttribute("placeholder") && el.getAttribute("placeholder") !== node.name) {
      node.props.placeholder = el.getAttribute("placeholder");
    }
  }

  function pointer(n) {
    const b = n.box;
    if (!b) return false;
    if (b._c === undefined) {
      const s = style(b.el);
      b._c = s ? s.cursor : "";
    }
    return b._c === "pointer";
  }
  function mergeText(n) {
    const ks = n.kids;
    let strings = 0;
    for (const k of ks) if (typeof k === "string") strings++;
    if (!strings) return;
    if (strings === ks.length) {
      const t = ws(ks.length === 1 ? ks[0] : ks.join(""));
      n.kids = t ? [t] : [];
      return;
    }
    const kids = [];
    let buf = "";
    let open = false;
    for (const k of ks) {
      if (typeof k === "string") { buf += k; open = true; continue; }
      if (open) {
        const t = ws(buf);
        if (t) kids.push(t);
        buf = "";
        open = false;
      }
      kids.push(k);
    }
    if (open) {
      const t = ws(buf);
      if (t) kids.push(t);
    }
    n.kids = kids;
  }

  // ---- refs: every printed element but options and text ----
  const localRef = /^e[1-9][0-9]{0,8}$/;
  // bindRefs gives the nodes of doc their refs and returns its iframe nodes.
  function bindRefs(nodes, prefix, doc) {
    const root = doc.documentElement;
    const start = parseInt(root.getAttribute(NEXT), 10) || 1;
    let next = start;
    const seen = new Set();
    const iframes = [];
    const walk = (ns) => {
      for (const n of ns) {
        if (typeof n === "string") continue;
        if (n.el && n.role !== "option") {
          let r = n.el.getAttribute(REF);
          if (!r || seen.has(r) || !localRef.test(r)) {
            r = "e" + next++;
            n.el.setAttribute(REF, r);
          }
          seen.add(r);
          n.ref = prefix + r;
        }
        if (n.role === "iframe") iframes.push(n);
        else walk(n.kids);
      }
    };
    walk(nodes);
    if (next !== start) root.setAttribute(NEXT, String(next));
    return iframes;
  }

  const frames = []; // placeholders: frames this evaluation could not read
  const maxFrameDepth = 5;
  function snapDocument(doc, prefix, depth) {
    const rootEl = doc.querySelector("body,frameset") || doc.documentElement;
    if (!rootEl) return [];
    enterScope(doc);
    const nodes = buildDoc(doc, rootEl, depth === 0 && !opts.child && opts.maxChars > 0 && !opts.urls && !opts.selector && !opts.frame);
    const frameNodes = bindRefs(nodes, prefix, doc);
    for (const f of frameNodes) {
      if (!f.ref || depth >= maxFrameDepth) continue;
      const childPrefix = f.ref.slice(0, f.ref.lastIndexOf("e")) + "f" + f.ref.slice(f.ref.lastIndexOf("e") + 1);
      let cd = null;
      try { cd = f.el.contentDocument; } catch (e) { cd = null; }
      if (cd && cd.documentElement) f.kids = snapDocument(cd, childPrefix, depth + 1);
      else f.kids = [{ role: PH, ref: f.ref, kids: [], props: {} }];
    }
    return nodes;
  }

  // ---- options and text ----
  const STRUCTURAL = new Set("application directory document generic grid group ignored list menu menubar none presentation row rowgroup table tablist toolbar tree treegrid".split(" "));
  const INTERACTIVE = new Set("button checkbox combobox link listbox menuitem menuitemcheckbox menuitemradio option radio searchbox slider spinbutton switch tab textbox treeitem".split(" "));
  function compact(ns) {
    const out = [];
    for (const n of ns) {
      if (typeof n === "string" || n.role === PH) { out.push(n); continue; }
      const kids = compact(n.kids);
      if (STRUCTURAL.has(n.role) && !n.name) { out.push(...kids); continue; }
      if (!n.ref && !INTERACTIVE.has(n.role) && !n.props.url && !kids.length) continue;
      n.kids = kids;
      out.push(n);
    }
    return out;
  }
  let cutAny = false;
  function cutDepth(ns, max, d) {
    for (const n of ns) {
      if (typeof n === "string" || !n.kids.length || n.kids.every((k) => typeof k === "string")) continue;
      if (d >= max) { cutAny = true; n.kids = []; continue; }
      cutDepth(n.kids, max, d + 1);
    }
    return ns;
  }
  // YAML would not read s back as the same plain string.
  const NEEDS_QUOTES = /^\s|\s$|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|^-|[\n:](\s|$)|\s#|[\n\r]|^[&*\],?!>|@"'#%]|[{}`]|^\[/;
  const YAML_WORDS = new Set(["y", "n", "yes", "no", "true", "false", "on", "off", "null"]);
  function yamlNeedsQuotes(s) {
    if (s.length === 0 || NEEDS_QUOTES.test(s)) return true;
    return !isNaN(Number(s)) || (s.length <= 5 && YAML_WORDS.has(s.toLowerCase()));
  }
  const ESC = { "\\": "\\\\", '"': '\\"', "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
  function yamlValue(s) {
    if (!yamlNeedsQuotes(s)) return s;
    return '"' + s.replace(/[\\"\x00-\x1f\x7f-\x9f]/g, (c) => ESC[c] || "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0")) + '"';
  }
  const oneLine = (s) => s.trim().split(/\s+/).join(" ");
  function head(n, inPointer) {
    let k = n.role;
    if (n.name && n.name.length <= 900) k += " " + JSON.stringify(n.name);
    if (n.checked === "mixed") k += " [checked=mixed]";
    if (n.checked === true) k += " [checked]";
    if (n.disabled) k += " [disabled]";
    if (n.expanded) k += " [expanded]";
    if (n.active) k += " [active]";
    if (n.invalid === "grammar" || n.invalid === "spelling") k += " [invalid=" + n.invalid + "]";
    if (n.invalid === true) k += " [invalid]";
    if (n.level) k += " [level=" + n.level + "]";
    if (n.pressed === "mixed") k += " [pressed=mixed]";
    if (n.pressed === true) k += " [pressed]";
    if (n.selected === true) k += " [selected]";
    if (n.props["aria-hidden"]) k += " [aria-hidden]";
    if (n.ref) {
      k += " [ref=" + n.ref + "]";
      if (!inPointer && n.el && pointer(n) && pwRef(n)) k += " [cursor=pointer]";
    }
    return "- " + (yamlNeedsQuotes(k) ? "'" + k.replace(/'/g, "''") + "'" : k);
  }
  // Lines stop once they pass the budget (nothing after the cut is shown).
  const lines = [];
  let budget = opts.maxChars > 0 && !opts.urls && !opts.child ? opts.maxChars + 1 : Infinity; // the last line has no newline
  const push = (l) => {
    lines.push(l);
    budget -= l.length + 1;
  };
  const pad = (d) => "  ".repeat(d);
  function placeholder(n, level) {
    frames.push({ ref: n.ref, level });
    push(PH + n.ref + PH + level);
  }
  function renderTree(n, d, inPointer) {
    if (budget < 0) return;
    if (typeof n === "string") { push(pad(d) + "- text: " + yamlValue(oneLine(n))); return; }
    if (n.role === PH) { placeholder(n, d); return; }
    const h = pad(d) + head(n, inPointer);
    const kidsPointer = inPointer || (!!n.ref && n.el && pointer(n) && pwRef(n));
    const hasUrl = n.props.url !== undefined, hasPh = n.props.placeholder !== undefined;
    if (!hasUrl && !hasPh && n.kids.length === 1 && typeof n.kids[0] === "string") {
      push(h + ": " + yamlValue(oneLine(n.kids[0])));
      return;
    }
    if (!hasUrl && !hasPh && !n.kids.length) { push(h); return; }
    push(h + ":");
    if (hasUrl) push(pad(d + 1) + "- /url: " + yamlValue(n.props.url));
    if (hasPh) push(pad(d + 1) + "- /placeholder: " + yamlValue(n.props.placeholder));
    for (const k of n.kids) renderTree(k, d + 1, kidsPointer);
  }
  function renderFlat(ns, d, inPointer) {
    for (const n of ns) {
      if (budget < 0) return;
      if (typeof n === "string") continue;
      if (n.role === PH) { placeholder(n, d); continue; }
      if (n.ref && INTERACTIVE.has(n.role)) push(head(n, inPointer));
      renderFlat(n.kids, d + 1, inPointer || (!!n.ref && n.el && pointer(n) && pwRef(n)));
    }
  }
  function links(ns, out) {
    for (const n of ns) {
      if (typeof n === "string") continue;
      if (n.role === PH) { out.push([null, n.ref]); continue; }
      if (n.role === "link" && n.props.url) {
        let href = oneLine(n.el.getAttribute("href") || "");
        try { href = new URL(href, n.el.baseURI).href; } catch (e) { /* as written */ }
        out.push([oneLine(n.name) || "(no text)", href]);
      }
      links(n.kids, out);
    }
    return out;
  }
  function utf8len(s) {
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) n++;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c <= 0xdbff) { n += 4; i++; }
      else n += 3;
    }
    return n;
  }

  // ---- run ----
  const doc = document;
  let nodes = snapDocument(doc, opts.prefix || "", opts.frameDepth || 0);
  const sel = opts.selector || opts.frame;
  if (sel) {
    let target;
    try { target = doc.querySelector(sel); } catch (e) { return { error: "invalid" }; }
    if (!target) return { error: "nomatch" };
    const out = [];
    const walk = (ns) => {
      for (const n of ns) {
        if (typeof n === "string" || n.role === PH) continue;
        if (n.el && n.el.ownerDocument === doc && inside(n.el, target)) { out.push(n); continue; }
        walk(n.kids);
      }
    };
    walk(nodes);
    nodes = out;
    if (opts.frame) {
      if (nodes.length !== 1 || nodes[0].role !== "iframe") return { error: "notframe", tag: target.localName };
      nodes = nodes[0].kids;
    }
  }
  if (opts.compact) nodes = compact(nodes);
  const maxDepth = opts.depth === null || opts.depth === undefined ? 100 : Math.min(opts.depth, 100);
  nodes = cutDepth(nodes, maxDepth, 0);
  if (opts.interactive) renderFlat(nodes, 0, false);
  else for (const n of nodes) renderTree(n, 0, false);
  let text = lines.join("\n");
  const res = { cut: cutAny, closedHint: closedHint && !opts.closedDone, url: opts.child ? undefined : String(location.href) };
  if (opts.urls) res.links = links(nodes, []);
  if (frames.length) {
    res.text = text;
    res.frames = frames;
    return res;
  }
  if (text === "" && !opts.child) text = opts.interactive ? "(no interactive elements)" : "(empty)";
  if (cutAny && !opts.child && (opts.depth === null || opts.depth === undefined || opts.depth > 100)) {
    text += "\n[...TRUNCATED - accessibility tree too deep]";
  }
  if (res.links && !opts.child) {
    if (res.links.length) text += "\n\nLinks:\n" + res.links.map((l, i) => (i + 1) + ". " + l[0] + " -> " + l[1]).join("\n");
    delete res.links;
  }
  // --max-chars, here when nothing is left to fill in: cut on a line
  // boundary so that the kept lines, a blank line and the marker fit.
  const max = opts.maxChars || 0;
  if (max > 0 && !opts.child && utf8len(text) > max) {
    const marker = max < 31 ? "\u2026" : "[...TRUNCATED - page too large]";
    const budget = max - 2 - utf8len(marker);
    let kept = "", used = 0, first = true;
    if (budget > 0) {
      for (const l of text.split("\n")) {
        const add = utf8len(l) + (first ? 0 : 1);
        if (used + add > budget) break;
        kept += (first ? "" : "\n") + l;
        used += add;
        first = false;
      }
    }
    text = kept === "" ? marker : kept + "\n\n" + marker;
    res.truncated = true;
  }
  res.text = text;
  return res;
})
