// minitorch's backward stepper: applies one step of the recorded backward pass to the one
// drawing of the graph. Shared by the static HTML page and the anywidget widget (which
// appends an ES-module export to this file). Plain JavaScript, no libraries, no network.
//
// The drawing is a Graphviz SVG laid out once; its elements carry ids "<prefix>n_<node>"
// (nodes) and "<prefix>g_<edge>" (the backward arrows). A frame of `data.frames` names
// the Function that runs, the arrows that carry gradients and the Variables that receive
// them; everything else (what is done, what holds a gradient) follows from the frames
// before it. All text goes in through textContent, never as HTML.
function minitorchStepper(root, data, options) {
  "use strict";
  options = options || {};
  var frames = data.frames;
  var last = frames.length - 1;
  var prefix = data.prefix;
  // A graph that only fits below TOO_SMALL is shown at READABLE instead, following the
  // active Function (labels below ~40% are unreadable on a projector).
  var TOO_SMALL = 0.4, READABLE = 0.9;
  var view = root.querySelector(".mts-view");
  var canvas = root.querySelector(".mts-canvas");
  var svg = canvas.querySelector("svg");
  var slider = root.querySelector(".mts-slider");
  var counter = root.querySelector(".mts-counter");
  var caption = root.querySelector(".mts-caption");
  var tbody = root.querySelector(".mts-table tbody");
  var byId = {};
  var all = root.querySelectorAll("g[id]");
  for (var i = 0; i < all.length; i++) {
    if (all[i].id.indexOf(prefix) === 0) byId[all[i].id.slice(prefix.length)] = all[i];
  }
  var width = 1, height = 1;
  if (svg) {
    var box = svg.viewBox && svg.viewBox.baseVal;
    width = box && box.width ? box.width : svg.getBoundingClientRect().width || 1;
    height = box && box.height ? box.height : svg.getBoundingClientRect().height || 1;
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
  }
  var badges = makeBadges();
  var zoom = 1, panX = 0, panY = 0, fitted = true, current = -1;

  function node(id) { return byId["n_" + id]; }

  function makeBadges() {
    // One small badge per Variable, drawn beside (not inside) its node, so that node
    // boxes never change: "+=" where a fan-in adds up, "∂" where a gradient is held.
    var made = {};
    if (!svg) return made;
    var layer = svg.querySelector("g.graph") || svg;
    var ns = svg.namespaceURI; // the SVG namespace, without writing out its URL
    data.variables.forEach(function (id) {
      var g = node(id);
      if (!g) return;
      var b = g.getBBox();
      var badge = document.createElementNS(ns, "g");
      badge.setAttribute("class", "mts-badge");
      var rect = document.createElementNS(ns, "rect");
      rect.setAttribute("x", b.x + b.width - 14);
      rect.setAttribute("y", b.y - 9);
      rect.setAttribute("width", 22);
      rect.setAttribute("height", 15);
      rect.setAttribute("rx", 7);
      var text = document.createElementNS(ns, "text");
      text.setAttribute("x", b.x + b.width - 3);
      text.setAttribute("y", b.y + 2.5);
      text.setAttribute("text-anchor", "middle");
      badge.appendChild(rect);
      badge.appendChild(text);
      layer.appendChild(badge);
      made[id] = {g: badge, text: text};
    });
    return made;
  }

  function setClass(el, name, on) {
    if (el) el.classList.toggle(name, !!on);
  }

  function show(k) {
    k = Math.max(0, Math.min(last, Math.round(Number(k) || 0)));
    var frame = frames[k];
    var done = {}, holds = {};
    for (var j = 0; j <= k; j++) {
      var f = frames[j];
      if (j < k && f.active) done[f.active] = true;
      f.got.forEach(function (id) { holds[id] = true; });
    }
    if (k === last) frames.forEach(function (f) { if (f.active) done[f.active] = true; });
    if (frame.holds) { // the end: only what keeps a .grad (retain_grad=False drops the rest)
      holds = {};
      frame.holds.forEach(function (id) { holds[id] = true; });
    }
    data.functions.forEach(function (id) {
      setClass(node(id), "mts-active", id === frame.active);
      setClass(node(id), "mts-done", done[id] && id !== frame.active);
    });
    var got = {}, acc = {};
    frame.got.forEach(function (id) { got[id] = true; });
    frame.acc.forEach(function (id) { acc[id] = true; });
    data.variables.forEach(function (id) {
      setClass(node(id), "mts-got", got[id]);
      var badge = badges[id];
      if (!badge) return;
      var text = acc[id] ? "+=" : (holds[id] ? "\u2202" : "");
      badge.text.textContent = text;
      setClass(badge.g, "mts-on", text !== "");
      setClass(badge.g, "mts-acc", acc[id]);
    });
    var send = {}, recv = {};
    frame.send.forEach(function (e) { send[e] = true; });
    frame.recv.forEach(function (e) { recv[e] = true; });
    data.edges.forEach(function (e) {
      var g = byId["g_" + e];
      setClass(g, "mts-send", send[e]);
      setClass(g, "mts-recv", recv[e]);
    });
    counter.textContent = frame.counter;
    caption.textContent = frame.caption;
    // At the first and the last frame, the buttons that cannot move say so (aria-disabled,
    // not disabled: a disabled button would drop the focus, and with it the keys).
    disable(["first", "prev"], k === 0);
    disable(["next", "last"], k === last);
    renderTable(frame.rows);
    slider.value = String(k);
    root.setAttribute("data-step", String(k));
    var changed = k !== current;
    current = k;
    follow(frame.active || data.output);
    if (changed && options.onStep) options.onStep(k);
    return k;
  }

  function disable(names, on) {
    names.forEach(function (name) {
      var button = root.querySelector('button[data-act="' + name + '"]');
      if (button) button.setAttribute("aria-disabled", on ? "true" : "false");
    });
  }

  // The caption keeps the height of the tallest one, so the drawing below it never moves
  // or shrinks between frames, and a long caption cannot push it out of the window.
  // Measured all at once in a hidden copy at the caption's width (one layout, not one per
  // frame); again whenever the width changes.
  function reserveCaption() {
    var w = caption.clientWidth;
    if (!w) return;
    var probe = document.createElement("div");
    probe.style.cssText = "position:absolute;visibility:hidden;left:0;top:0;width:" + w + "px";
    var texts = {};
    frames.forEach(function (f) { texts[f.caption] = true; });
    Object.keys(texts).forEach(function (text) {
      var p = document.createElement("p");
      p.className = "mts-caption";
      p.style.minHeight = "0";
      p.style.margin = "0";
      p.textContent = text;
      probe.appendChild(p);
    });
    root.appendChild(probe);
    var tallest = 0;
    for (var c = 0; c < probe.childNodes.length; c++) {
      tallest = Math.max(tallest, probe.childNodes[c].getBoundingClientRect().height);
    }
    root.removeChild(probe);
    caption.style.minHeight = Math.ceil(tallest) + "px";
  }

  function withBreaks(el, text) {
    // The text, with a line-break opportunity (<wbr>, no character) after each / _ and .
    // so a long gradient name wraps where it reads well: ∂loss/ ∂layers.0. W.grad.
    var start = 0;
    for (var i = 0; i < text.length; i++) {
      if ("/_.".indexOf(text.charAt(i)) >= 0 && i + 1 < text.length) {
        el.appendChild(document.createTextNode(text.slice(start, i + 1)));
        el.appendChild(document.createElement("wbr"));
        start = i + 1;
      }
    }
    el.appendChild(document.createTextNode(text.slice(start)));
  }

  function renderTable(rows) {
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    rows.forEach(function (row) {
      var tr = document.createElement("tr");
      tr.className = "mts-row-" + row[0];
      row.forEach(function (cell, c) {
        var td = document.createElement(c === 0 ? "th" : "td");
        if (c === 1) withBreaks(td, cell);
        else td.textContent = cell;
        tr.appendChild(td);
      });
      tbody.appendChild(tr);
    });
  }

  // -- zoom, pan, fit, follow -----------------------------------------------------------
  function available() {
    var w = view.clientWidth || 600;
    var full = document.fullscreenElement === root;
    var h;
    if (full || root.classList.contains("mts-page")) {
      // Down to the root's inner bottom edge (its height is fixed by the CSS: the window
      // less the page margin), less the view's own border: the page never scrolls.
      var style = getComputedStyle(root);
      var bottom = root.getBoundingClientRect().bottom - parseFloat(style.borderBottomWidth) -
        parseFloat(style.paddingBottom);
      h = bottom - view.getBoundingClientRect().top - (view.offsetHeight - view.clientHeight);
    } else {
      // in a notebook: the controls, caption and drawing fit in the window together
      h = Math.min(Math.max(window.innerHeight - 230, 240), height * (w / width));
    }
    return {w: w, h: Math.max(h, 160)};
  }

  function apply() {
    canvas.style.transform = "translate(" + panX + "px," + panY + "px) scale(" + zoom + ")";
  }

  function layoutView(readable) {
    var room = available();
    var scale = Math.min(room.w / width, room.h / height, 2);
    if (readable && scale < TOO_SMALL) scale = READABLE;
    zoom = scale;
    // Whole pixels, rounded down: rounding up made the view stick out below the window.
    var shownH = Math.floor(Math.min(room.h, height * zoom));
    view.style.height = shownH + "px";
    panX = (room.w - width * zoom) / 2;
    panY = (shownH - height * zoom) / 2;
    if (panX < 0) panX = 0;
    if (panY < 0) panY = 0;
    apply();
  }

  function fit(readable) {
    fitted = true;
    reserveCaption();
    layoutView(readable);
    if (current >= 0) follow(frames[current].active || data.output);
  }

  function follow(id) {
    // Pan (never zoom) so that the active Function is in sight, if it is not already.
    var g = id && node(id);
    if (!g) return;
    var r = g.getBoundingClientRect(), v = view.getBoundingClientRect();
    var x0 = r.left - v.left, x1 = r.right - v.left, y0 = r.top - v.top, y1 = r.bottom - v.top;
    var vw = view.clientWidth, vh = view.clientHeight, m = -2; // a fitted view: no move
    if (x0 >= m && y0 >= m && x1 <= vw - m && y1 <= vh - m) return; // already in sight
    if (x0 < m || x1 > vw - m) panX += vw / 2 - (x0 + x1) / 2;
    if (y0 < m || y1 > vh - m) panY += vh / 2 - (y0 + y1) / 2;
    apply();
  }

  function zoomBy(factor, cx, cy) {
    if (cx === undefined) { cx = view.clientWidth / 2; cy = view.clientHeight / 2; }
    var z = Math.max(0.1, Math.min(4, zoom * factor));
    panX = cx - (cx - panX) * (z / zoom);
    panY = cy - (cy - panY) * (z / zoom);
    zoom = z;
    fitted = false;
    apply();
  }

  var drag = null;
  view.addEventListener("pointerdown", function (e) {
    drag = {x: e.clientX, y: e.clientY, px: panX, py: panY};
    view.classList.add("mts-dragging");
  });
  window.addEventListener("pointermove", function (e) {
    if (!drag) return;
    panX = drag.px + e.clientX - drag.x;
    panY = drag.py + e.clientY - drag.y;
    fitted = false;
    apply();
  });
  window.addEventListener("pointerup", function () {
    drag = null;
    view.classList.remove("mts-dragging");
  });
  view.addEventListener("wheel", function (e) {
    if (!(e.ctrlKey || e.metaKey)) return; // plain wheel scrolls the page (notebooks)
    e.preventDefault();
    var r = view.getBoundingClientRect();
    zoomBy(e.deltaY < 0 ? 1.15 : 1 / 1.15, e.clientX - r.left, e.clientY - r.top);
  }, {passive: false});

  // -- controls and keys ----------------------------------------------------------------
  function act(name) {
    if (name === "next") show(current + 1);
    else if (name === "prev") show(current - 1);
    else if (name === "first") show(0);
    else if (name === "last") show(last);
    else if (name === "zoomin") zoomBy(1.25);
    else if (name === "zoomout") zoomBy(1 / 1.25);
    else if (name === "fit") fit(false);
    else if (name === "full") fullScreen();
  }

  function fullScreen() {
    if (document.fullscreenElement === root) {
      document.exitFullscreen();
    } else if (root.requestFullscreen) {
      root.requestFullscreen().catch(function () {});
    }
  }

  var buttons = root.querySelectorAll("button[data-act]");
  for (var b = 0; b < buttons.length; b++) {
    buttons[b].addEventListener("click", function (e) {
      act(e.currentTarget.getAttribute("data-act"));
    });
  }
  slider.addEventListener("input", function () { show(Number(slider.value)); });
  var KEYS = {
    ArrowRight: "next", PageDown: "next", " ": "next", Spacebar: "next",
    ArrowLeft: "prev", PageUp: "prev", Home: "first", End: "last",
    "+": "zoomin", "=": "zoomin", "-": "zoomout", "0": "fit", f: "full"
  };
  root.addEventListener("keydown", function (e) {
    var name = KEYS[e.key];
    if (!name || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    e.stopPropagation(); // the notebook's own shortcuts must not also move
    act(name);
  });
  // The stepper takes the focus when clicked, so the keys and a presenter's clicker
  // drive it; after the notebook's own mousedown handling (which focuses the cell).
  root.addEventListener("pointerdown", function () {
    setTimeout(function () {
      if (!root.contains(document.activeElement)) root.focus({preventScroll: true});
    }, 0);
  });
  var fullButton = root.querySelector('button[data-act="full"]');
  document.addEventListener("fullscreenchange", function () {
    if (fullButton) {
      fullButton.textContent = document.fullscreenElement === root ? "exit full screen" : "full screen";
    }
    fit(true);
  });
  if (window.ResizeObserver) {
    var lastWidth = 0;
    new ResizeObserver(function () {
      var w = view.clientWidth;
      if (fitted && w && Math.abs(w - lastWidth) > 1) { lastWidth = w; fit(true); }
    }).observe(root);
  }
  reserveCaption();
  layoutView(true);
  show(options.step || 0);
  return {show: show, fit: fit, get step() { return current; }};
}
