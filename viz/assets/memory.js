// The stepper's memory line (BackwardStepper(..., show_memory=True)): the bytes the graph
// still holds for backward at each frame, as text and as a bar that empties as backward
// runs. Loaded only with show_memory, so steppers without it stay byte for byte the same.
// Returns the function to call with each frame shown (minitorchStepper's onStep), or
// null when the block has no memory line. Text goes in through textContent only.
function minitorchMemory(root, data) {
  "use strict";
  var line = root.querySelector(".mts-memory");
  if (!line) return null;
  var text = line.querySelector(".mts-memory-text");
  var bar = line.querySelector(".mts-memory-bar span");
  var total = data.frames[0].held || 0;
  return function (k) {
    var frame = data.frames[k];
    if (!frame || frame.memory === undefined) return;
    text.textContent = frame.memory;
    bar.style.width = (total > 0 ? 100 * frame.held / total : 0) + "%";
  };
}
