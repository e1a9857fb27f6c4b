/*
 * Web workers for pages opened from the file system (file://).
 *
 * The site's search runs in a web worker, and browsers refuse `new Worker(url)` when the
 * page and the script are files. Opened from a file, this script (loaded before the
 * theme's) replaces `Worker` with one that runs the worker's script in a hidden iframe
 * of the page's own origin: messages go both ways as `message` events, as they would
 * between a page and a worker. Served over http(s) it does nothing. The theme's offline
 * plugin recognises a polyfill named `iframe-worker` and then adds none of its own.
 */
(function () {
  "use strict";
  if (location.protocol !== "file:" || typeof document === "undefined") {
    return;
  }

  function FileWorker(url) {
    var target = document.createDocumentFragment();
    var queue = [];
    var scope = null;
    var frame = document.createElement("iframe");
    var self = this;

    this.addEventListener = target.addEventListener.bind(target);
    this.removeEventListener = target.removeEventListener.bind(target);
    this.dispatchEvent = target.dispatchEvent.bind(target);
    this.onmessage = null;
    this.onerror = null;

    function deliver(data) {
      var event = new MessageEvent("message", { data: data });
      if (typeof self.onmessage === "function") {
        self.onmessage(event);
      }
      target.dispatchEvent(event);
    }

    function send(data) {
      scope.dispatchEvent(new scope.MessageEvent("message", { data: data }));
    }

    this.postMessage = function (data) {
      if (scope === null) {
        queue.push(data);
      } else {
        send(data);
      }
    };

    this.terminate = function () {
      frame.remove();
      scope = null;
      queue = [];
    };

    frame.setAttribute("aria-hidden", "true");
    frame.setAttribute("tabindex", "-1");
    frame.style.display = "none";
    document.body.appendChild(frame);
    var inner = frame.contentWindow;
    inner.postMessage = function (data) {
      setTimeout(function () { deliver(data); }, 0);
    };
    inner.importScripts = function () {
      throw new Error("importScripts is not available to a worker of a file:// page");
    };
    var script = inner.document.createElement("script");
    script.src = new URL(url, location.href).href;
    script.onload = function () {
      scope = inner;
      var waiting = queue;
      queue = [];
      waiting.forEach(send);
    };
    script.onerror = function () {
      var event = new Event("error");
      if (typeof self.onerror === "function") {
        self.onerror(event);
      }
      target.dispatchEvent(event);
    };
    inner.document.head.appendChild(script);
  }

  window.Worker = FileWorker;
})();
