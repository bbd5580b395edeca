(() => {
  "use strict";
  // The canvas bridge, injected into every HTML page the canvas host
  // serves. A page reports a user action with
  // openclawSendUserAction({name, surfaceId, sourceComponentId, context});
  // the node's native handler "openclawCanvasA2UIAction" receives it as
  // the JSON text {"userAction":{...}}. The handler may be a WebKit message
  // handler (macOS, iOS), a JavaScript interface object (Android) or a plain
  // function (a CDP binding, as a headless node host installs).
  const HANDLER = "openclawCanvasA2UIAction";
  const LIVE_RELOAD = /*LIVE_RELOAD*/false;
  const WS_PATH = "/__openclaw__/ws";

  function postToNode(payload) {
    let raw;
    try {
      raw = typeof payload === "string" ? payload : JSON.stringify(payload);
    } catch (err) {
      return false;
    }
    try {
      const handlers = globalThis.webkit && globalThis.webkit.messageHandlers;
      const wk = handlers && handlers[HANDLER];
      if (wk && typeof wk.postMessage === "function") {
        wk.postMessage(raw);
        return true;
      }
      const h = globalThis[HANDLER];
      if (h && typeof h.postMessage === "function") {
        h.postMessage(raw); // called on the object: Android binds `this`
        return true;
      }
      if (typeof h === "function") {
        h(raw);
        return true;
      }
    } catch (err) {
      // a handler that throws has not taken the message
    }
    return false;
  }

  function newId() {
    const c = globalThis.crypto;
    if (c && typeof c.randomUUID === "function") return c.randomUUID();
    if (c && typeof c.getRandomValues === "function") {
      const b = c.getRandomValues(new Uint8Array(16));
      return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    }
    return String(Date.now()) + "-" + String(Math.random()).slice(2);
  }

  function sendUserAction(userAction) {
    const action = Object.assign({}, userAction || {});
    if (typeof action.id !== "string" || action.id.trim() === "") action.id = newId();
    if (action.timestamp === undefined) action.timestamp = new Date().toISOString();
    return postToNode({ userAction: action });
  }

  const oc = (globalThis.OpenClaw = globalThis.OpenClaw || {});
  oc.postMessage = postToNode;
  oc.sendUserAction = sendUserAction;
  globalThis.openclawPostMessage = postToNode;
  globalThis.openclawSendUserAction = sendUserAction;

  if (!LIVE_RELOAD || typeof WebSocket !== "function") return;
  // Live reload: the host sends "reload" when a file under the canvas root
  // changes. A dropped socket is retried with a growing pause (up to 5 s);
  // one that never opened (refused) is given up after three tries.
  let pause = 250;
  let opened = false;
  let failures = 0;
  function connect() {
    let ws;
    try {
      ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + WS_PATH);
    } catch (err) {
      return;
    }
    ws.onopen = () => {
      opened = true;
      pause = 250;
      oc.liveReload = "connected";
    };
    ws.onmessage = (ev) => {
      if (String(ev.data) === "reload") location.reload();
    };
    ws.onclose = () => {
      if (!opened && ++failures >= 3) {
        oc.liveReload = "unavailable";
        return;
      }
      oc.liveReload = "retrying";
      setTimeout(connect, pause);
      pause = Math.min(pause * 2, 5000);
    };
  }
  connect();
})();
