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
  var zoom = 1, panX = 0, panY = 0, current = -1;

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
    frameView(k);
    if (frame.legend) legendRows(frame.legend);
    if (changed && options.onStep) options.onStep(k);
    return k;
  }

  function legendRows(keys) {
    // Only the rows of what this frame's drawing shows.
    var items = root.querySelectorAll(".mts-legend li[data-key]");
    for (var i = 0; i < items.length; i++) {
      items[i].hidden = keys.indexOf(items[i].getAttribute("data-key")) < 0;
    }
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
    // The text, with a line-break opportunity (<wbr>, no character) after each "/", so a
    // gradient wraps between its two names (∂loss/ ∂layers.0.W), never inside a name;
    // a name too long for a line (over 24 characters) may also break after "." and "_".
    var start = 0, stops = text.length > 24 ? "/_." : "/";
    for (var i = 0; i < text.length; i++) {
      if (stops.indexOf(text.charAt(i)) >= 0 && i + 1 < text.length) {
        el.appendChild(document.createTextNode(text.slice(start, i + 1)));
        el.appendChild(document.createElement("wbr"));
        start = i + 1;
      }
    }
    el.appendChild(document.createTextNode(text.slice(start)));
  }

  function sideNeed() {
    // The side panel's height for its tallest table and its longest legend, so that a
    // notebook's view leaves room for both in every frame (measured once, at this width).
    var most = frames.reduce(function (a, f) { return f.rows.length > a.rows.length ? f : a; });
    renderTable(most.rows);
    var items = root.querySelectorAll(".mts-legend li[data-key]"), keys = {};
    frames.forEach(function (f) { (f.legend || []).forEach(function (key) { keys[key] = true; }); });
    for (var i = 0; i < items.length; i++) items[i].hidden = !keys[items[i].getAttribute("data-key")];
    var side = root.querySelector(".mts-side");
    var need = side ? side.scrollHeight : 0;
    if (current >= 0) { renderTable(frames[current].rows); legendRows(frames[current].legend || []); }
    return need;
  }

  function renderTable(rows) {
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    rows.forEach(function (row) {
      var tr = document.createElement("tr");
      tr.className = "mts-row-" + row[0];
      row.forEach(function (cell, c) {
        var td = document.createElement(c === 0 ? "th" : "td");
        if (c === 1) {
          withBreaks(td, cell);
          if (cell.length > 24) td.className = "mts-long";
        } else {
          td.textContent = cell;
        }
        tr.appendChild(td);
      });
      tbody.appendChild(tr);
    });
  }

  // -- zoom, pan, fit, follow -----------------------------------------------------------
  // A graph that fits the view with every label at MIN_LABEL px or more is shown whole,
  // in every frame, and never moves. A bigger one is shown whole at the start and the
  // end (an overview: its labels too small to read are hidden, a note says so) and, while
  // it steps, at the zoom where the smallest label is MIN_LABEL px: the view moves only
  // when the active Function would leave it, and then so that it and as many of the
  // Functions that run after it as fit are in sight. Zooming or dragging takes over
  // (mode "manual": the view then moves only to keep the active Function in sight);
  // "fit" shows the whole graph in every frame (mode "whole").
  var MIN_LABEL = 12;
  var texts = [], smallest = Infinity;
  var allText = svg ? svg.querySelectorAll("text") : [];
  for (var t = 0; t < allText.length; t++) {
    var size = parseFloat(allText[t].getAttribute("font-size")) ||
      parseFloat(getComputedStyle(allText[t]).fontSize) || 14;
    texts.push({el: allText[t], size: size});
    smallest = Math.min(smallest, size);
  }
  var readable = isFinite(smallest) ? MIN_LABEL / smallest : 1;
  var NOTE_HEIGHT = 22, noteRoom = 0;
  var fitZoom = 1, mode = "auto", shownZoom = -1, appliedZoom = 1, boxes = null;
  var note = document.createElement("div");
  note.className = "mts-note";
  note.textContent = "The whole graph: too big to read at once. \u2192 steps through it " +
    "(close up); drag to pan, + to zoom in.";
  view.appendChild(note);

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
      // in a notebook: the controls, caption and drawing fit in the window together, and
      // the view is at least as tall as the side panel needs (if the window allows)
      var most = Math.max(window.innerHeight - 200, 240);
      h = Math.min(most, Math.max(height * Math.max(w / width, readable), sideNeed()));
    }
    return {w: w, h: Math.max(h, 160)};
  }

  function apply() {
    canvas.style.transform = "translate(" + panX + "px," + panY + "px) scale(" + zoom + ")";
    appliedZoom = zoom;
    if (zoom === shownZoom) return;
    shownZoom = zoom;
    var hidden = false;
    texts.forEach(function (t) {
      var small = t.size * zoom < MIN_LABEL - 0.01; // unreadable: hidden, not shrunk
      t.el.style.visibility = small ? "hidden" : "";
      hidden = hidden || small;
    });
    note.style.display = hidden ? "block" : "none";
  }

  function layoutView() {
    var room = available();
    fitZoom = Math.min(room.w / width, room.h / height, 2);
    var big = fitZoom < readable;
    // The overview keeps a line at the top for its note, so the note covers no node.
    noteRoom = big ? NOTE_HEIGHT : 0;
    if (big) fitZoom = Math.min(room.w / width, (room.h - noteRoom) / height);
    // Whole pixels, rounded down: rounding up made the view stick out below the window.
    // (a page: no taller than the drawing; a notebook: room for the side panel too)
    var inPage = root.classList.contains("mts-page") || document.fullscreenElement === root;
    var drawn = big ? room.h : height * fitZoom;
    view.style.height = Math.floor(inPage ? Math.min(room.h, drawn) : room.h) + "px";
  }

  function whole() {
    zoom = fitZoom;
    panX = Math.max(0, (view.clientWidth - width * zoom) / 2);
    panY = noteRoom + Math.max(0, (view.clientHeight - noteRoom - height * zoom) / 2);
    apply();
  }

  function nodeBox(id) {
    // The node's box in the drawing's own units (the layout never changes: measured once).
    if (!boxes) {
      boxes = {};
      var c = canvas.getBoundingClientRect();
      Object.keys(byId).forEach(function (key) {
        if (key.indexOf("n_") !== 0) return;
        var r = byId[key].getBoundingClientRect();
        var z = appliedZoom;
        boxes[key.slice(2)] = {x0: (r.left - c.left) / z, y0: (r.top - c.top) / z,
                               x1: (r.right - c.left) / z, y1: (r.bottom - c.top) / z};
      });
    }
    return boxes[id];
  }

  function inSight(id) {
    var b = nodeBox(id);
    if (!b) return true;
    return b.x0 * zoom + panX >= -2 && b.y0 * zoom + panY >= -2 &&
      b.x1 * zoom + panX <= view.clientWidth + 2 && b.y1 * zoom + panY <= view.clientHeight + 2;
  }

  function place(k) {
    // Pan so that frame k's Function and as many of those that run after it as fit are
    // in sight, their box in the middle; never past the drawing's edges.
    var vw = view.clientWidth / zoom, vh = view.clientHeight / zoom, m = 24 / zoom;
    var run = null;
    for (var j = k; j < last; j++) {
      var b = frames[j].active && nodeBox(frames[j].active);
      if (!b) continue;
      var u = run ? {x0: Math.min(run.x0, b.x0), y0: Math.min(run.y0, b.y0),
                     x1: Math.max(run.x1, b.x1), y1: Math.max(run.y1, b.y1)} : b;
      if (run && (u.x1 - u.x0 > vw - 2 * m || u.y1 - u.y0 > vh - 2 * m)) break;
      run = u;
    }
    if (!run) return;
    panX = clampPan(view.clientWidth / 2 - (run.x0 + run.x1) / 2 * zoom, view.clientWidth, width);
    panY = clampPan(view.clientHeight / 2 - (run.y0 + run.y1) / 2 * zoom, view.clientHeight, height);
    apply();
  }

  function clampPan(pan, room, size) {
    if (size * zoom <= room) return (room - size * zoom) / 2;
    return Math.min(0, Math.max(room - size * zoom, pan));
  }

  function frameView(k) {
    // Where frame k is shown (see the comment at the top of this section).
    var active = frames[k].active;
    if (mode === "manual") { // the user's zoom; only keep the active Function in sight
      if (active && !inSight(active)) place(k);
      return;
    }
    if (mode === "whole" || fitZoom >= readable || !active) {
      whole();
      return;
    }
    if (zoom !== readable) {
      zoom = readable;
      place(k);
    } else if (!inSight(active)) {
      place(k);
    }
  }

  function fit() {
    mode = "whole";
    reserveCaption();
    layoutView();
    whole();
  }

  function relayout() {
    reserveCaption();
    layoutView();
    shownZoom = -1;
    if (mode === "auto") zoom = -1; // placed afresh for the new size
    if (current >= 0) frameView(current);
    else whole();
  }

  function zoomBy(factor, cx, cy) {
    if (cx === undefined) { cx = view.clientWidth / 2; cy = view.clientHeight / 2; }
    var z = Math.max(0.05, Math.min(4, zoom * factor));
    panX = cx - (cx - panX) * (z / zoom);
    panY = cy - (cy - panY) * (z / zoom);
    zoom = z;
    mode = "manual";
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
    mode = "manual";
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
    else if (name === "fit") fit();
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
    relayout();
  });
  if (window.ResizeObserver) {
    var lastWidth = 0;
    new ResizeObserver(function () {
      var w = view.clientWidth;
      if (w && Math.abs(w - lastWidth) > 1) { lastWidth = w; relayout(); }
    }).observe(root);
  }
  reserveCaption();
  layoutView();
  whole();
  show(options.step || 0);
  return {show: show, fit: fit, get step() { return current; }};
}
