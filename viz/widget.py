"""``StepperWidget``: the backward stepper as a Jupyter widget, built on anywidget.

The widget shows exactly the drawing and the step data of
:class:`viz.stepper.BackwardStepper` and runs the same script (``viz/assets/stepper.js``,
shipped inside the package and sent to the browser as the widget's ES module — no CDN).
The current frame is the synced trait ``step``: read it, or set it from Python
(``widget.step = 3``) and the view follows; pressing → in the view updates it.

Its display bundle also carries an ``image/png`` of the start frame with the line "run
the cell to step through backward": that is what a notebook opened without running it
shows (JupyterLab does not render widgets, HTML scripts or SVG of untrusted notebooks,
but it does render PNG). The ``text/plain`` repr is fixed text, so nbval can compare it.
The bundle also holds the static stepper (:meth:`~viz.stepper.BackwardStepper.to_html`)
under :data:`viz.stepper.STEPPER_MIME`, a type no Jupyter front end renders: the docs
site shows it in place of the picture, so a notebook page there steps live too.
"""

from __future__ import annotations

import json
from typing import Any

import anywidget
import traitlets

from viz.export import picture_bundle
from viz.page import STEPPER_MIME, asset
from viz.trace import BackwardTrace
from viz.view import StepperView


class StepperWidget(anywidget.AnyWidget):  # type: ignore[misc]
    """A :class:`~viz.stepper.BackwardStepper` as an anywidget widget.

    Args:
        stepper: a BackwardStepper, or a BackwardTrace (then shown with the default
            options, as a :class:`viz.view.StepperView`: the stepper without its
            ``widget()`` method, which would only make another widget).

    Attributes:
        step: the frame shown: 0 is the start, ``k`` the k-th step, ``len(trace) + 1``
            the end. Synced with the browser.
        stepper: the stepper it shows (a BackwardStepper or StepperView).

    Raises:
        TypeError: if ``stepper`` is neither a BackwardStepper nor a BackwardTrace.
        traitlets.TraitError: when ``step`` is set outside ``0 .. len(trace) + 1``.

    Example:
        >>> import numpy as np
        >>> from minitorch import Variable
        >>> from viz import trace_backward
        >>> x = Variable(np.array(2.0), name="x")
        >>> widget = StepperWidget(trace_backward(x * x))
        >>> widget
        <viz.StepperWidget 1 step; run the cell to step through backward>
        >>> widget.step = 2  # the end frame
        >>> widget.step
        2
    """

    _esm = asset("stepper.js") + asset("memory.js") + asset("widget.js")
    html = traitlets.Unicode("").tag(sync=True)
    data = traitlets.Unicode("").tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)

    def __init__(self, stepper: StepperView | BackwardTrace, **kwargs: Any) -> None:
        if isinstance(stepper, BackwardTrace):
            stepper = StepperView(stepper)
        if not isinstance(stepper, StepperView):
            raise TypeError(
                "viz.StepperWidget: expected a viz.BackwardStepper or the result of "
                f"viz.trace_backward, got {type(stepper).__name__}"
            )
        self.stepper = stepper
        super().__init__(
            html=stepper.block_html(),
            data=json.dumps(stepper.data(), ensure_ascii=False, sort_keys=True),
            **kwargs,
        )

    @traitlets.validate("step")
    def _check_step(self, proposal: Any) -> int:
        value = int(proposal["value"])
        last = len(self.stepper) - 1
        if not 0 <= value <= last:
            raise traitlets.TraitError(
                f"viz.StepperWidget.step must be in 0..{last} (0 = start, {last} = end), "
                f"got {value}"
            )
        return value

    def __repr__(self) -> str:
        n = len(self.stepper.trace)
        steps = "step" if n == 1 else "steps"
        return f"<viz.StepperWidget {n} {steps}; run the cell to step through backward>"

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        data, metadata = bundle
        picture = picture_bundle(self.stepper)
        if picture is not None:  # drawn at 192 dpi, shown at the size of 96
            data["image/png"], metadata["image/png"] = picture
        # Never text/html: an untrusted JupyterLab would prefer it to the picture.
        data[STEPPER_MIME] = self.stepper.to_html()
        return data, metadata
