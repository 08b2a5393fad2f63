
// The anywidget entry point: the same block and the same stepper as the static page, with
// the step synced to Python's `StepperWidget.step`.
export default {
  render({ model, el }) {
    el.innerHTML = model.get("html"); // minitorch's own markup, escaped by viz.stepper
    const root = el.querySelector(".minitorch-stepper");
    const data = JSON.parse(model.get("data"));
    let stepper = null;
    const memory = minitorchMemory(root, data); // null unless show_memory
    const start = () => {
      stepper = minitorchStepper(root, data, {
        step: model.get("step"),
        onStep(k) {
          if (memory) memory(k);
          if (model.get("step") !== k) {
            model.set("step", k);
            model.save_changes();
          }
        },
      });
    };
    // The view is attached to the page only after render returns; lay it out then.
    requestAnimationFrame(start);
    const sync = () => { if (stepper) stepper.show(model.get("step")); };
    model.on("change:step", sync);
    return () => model.off("change:step", sync);
  },
};
