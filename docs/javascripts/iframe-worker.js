/*
 * Search on a site opened from disk (file://): a Web Worker stand-in that runs in an iframe.
 *
 * Material's search runs in a Web Worker. A page opened from file:// has an opaque origin,
 * and Chromium refuses to start a worker from a file:// script there, so search would be
 * dead. Material's `offline` plugin loads the search index through a <script> tag (it
 * writes search/search_index.js) and expects a Worker replacement; by default it adds one
 * from a CDN, which an offline site cannot fetch. This file is minitorch's own small
 * replacement: mkdocs.yml lists it under `extra.polyfills` (the plugin skips its CDN
 * script when a polyfill's name contains "iframe-worker").
 *
 * Only on file:// pages, `window.Worker` becomes a class that loads the worker script into
 * a hidden same-origin iframe and passes messages between the page and that iframe, with
 * the interface the search code uses: postMessage, addEventListener("message"), onmessage,
 * terminate. Inside the iframe, the script's global postMessage sends to the page, and
 * importScripts loads scripts in order and returns a promise (Material awaits it). Over
 * http (`make docs-serve`) nothing changes.
 */
(function () {
  "use strict";
  if (window.location.protocol !== "file:" || window.IframeWorker) {
    return;
  }

  function loadScripts(doc, urls) {
    return urls.reduce(function (ready, url) {
      return ready.then(function () {
        return new Promise(function (resolve, reject) {
          var script = doc.createElement("script");
          script.src = url;
          script.onload = resolve;
          script.onerror = function () {
            reject(new Error("iframe-worker: could not load " + url));
          };
          doc.head.appendChild(script);
        });
      });
    }, Promise.resolve());
  }

  class IframeWorker extends EventTarget {
    constructor(url) {
      super();
      this.onmessage = null;
      this.onerror = null;
      this._pending = [];
      this._ready = false;
      var scriptUrl = new URL(url, document.baseURI).href;
      var frame = document.createElement("iframe");
      frame.hidden = true;
      frame.setAttribute("aria-hidden", "true");
      frame.setAttribute("tabindex", "-1");
      frame.title = "search worker";
      (document.body || document.documentElement).appendChild(frame);
      this._frame = frame;
      var inner = frame.contentWindow;
      var self = this;
      // The worker's globals: its replies go to the page, scripts load in order.
      inner.postMessage = function (data) {
        setTimeout(function () {
          self._emit("message", data);
        }, 0);
      };
      inner.importScripts = function () {
        return loadScripts(inner.document, Array.prototype.slice.call(arguments));
      };
      loadScripts(inner.document, [scriptUrl]).then(
        function () {
          self._ready = true;
          self._pending.splice(0).forEach(function (data) {
            self._deliver(data);
          });
        },
        function (error) {
          self._emit("error", error);
        }
      );
    }

    _emit(type, data) {
      var event =
        type === "message"
          ? new MessageEvent("message", { data: data })
          : new ErrorEvent("error", { error: data, message: String(data) });
      var handler = type === "message" ? this.onmessage : this.onerror;
      if (typeof handler === "function") {
        handler.call(this, event);
      }
      this.dispatchEvent(event);
    }

    _deliver(data) {
      var inner = this._frame.contentWindow;
      if (inner) {
        inner.dispatchEvent(new inner.MessageEvent("message", { data: data }));
      }
    }

    postMessage(data) {
      var self = this;
      if (!this._ready) {
        this._pending.push(data);
        return;
      }
      setTimeout(function () {
        self._deliver(data);
      }, 0);
    }

    terminate() {
      this._frame.remove();
    }
  }

  window.IframeWorker = IframeWorker;
  window.Worker = IframeWorker;
})();
