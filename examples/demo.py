"""``make demo``: train a network on real handwritten digits and draw what autograd did.

Run it as ``python -m examples.demo`` (``--help`` lists the options). The demo

1. trains an MLP (or, with ``--model cnn``, the CNN of ``examples/models.py``) on the
   1,797 real 8x8 handwritten digits that scikit-learn ships, with a progress bar per
   epoch, and prints the test accuracy and the wall time;
2. writes the pictures that explain how it learned into ``build/demo/``:

   * ``loss_graph.svg`` - the graph of one mini-batch loss, parameters named by their
     module paths and grouped by layer;
   * ``backward.html`` - the backward pass of the untrained network's first batch, one
     Function at a time (a self-contained page that opens offline in any browser: press
     the right arrow key to step);
   * ``training.png`` - the loss and accuracy curves;
   * ``predictions.png`` - test digits with predicted and true labels, mistakes in red;
   * ``tanh_derivatives.png`` - tanh and its derivatives, each one a ``backward`` of
     the previous one (``create_graph=True``);
   * ``tanh_grad_graph.svg`` - the graph of d²tanh/dx², the nodes that backward created
     coloured apart.

Without Graphviz's ``dot`` program it still trains, writes the graphs as ``.dot`` text
and says what to install. Everything is seeded by ``--seed``: two runs print the same
numbers and draw the same pictures.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

import minitorch
import minitorch.ops as F
import viz
import viz.renderer
from examples.demo_pictures import (
    INSTALL_DOT,
    dot_available,
    draw_pictures,
    save_backward_stepper,
)
from minitorch import History, data, nn, optim

DEFAULT_EPOCHS = {"digits": 20, "spiral": 100, "mnist": 3}
DEFAULT_LR = {"digits": 0.01, "spiral": 0.03, "mnist": 0.002}
CNN_LR = 0.003
PROG = "python -m examples.demo"
SAMPLE_NOUN = {"digits": "digits", "spiral": "points", "mnist": "digits"}


@dataclass
class Task:
    """A dataset ready for training: both splits as arrays plus how to draw a sample.

    Attributes:
        name: ``digits``, ``spiral`` or ``mnist``.
        x_train, t_train, x_test, t_test: the samples ``(N, ...)`` and int labels ``(N,)``.
        n_classes: the number of labels.
        image_shape: ``(H, W)`` of one image, or ``None`` for points (spiral).
    """

    name: str
    x_train: np.ndarray
    t_train: np.ndarray
    x_test: np.ndarray
    t_test: np.ndarray
    n_classes: int
    image_shape: tuple[int, int] | None


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse the demo's command line, filling per-dataset defaults.

    Args:
        argv: the arguments without the program name (``None``: ``sys.argv[1:]``).

    Returns:
        The options: ``epochs``, ``seed``, ``out``, ``dataset``, ``data_dir``, ``model``,
        ``batch_size``, ``lr``, ``no_progress``.

    Raises:
        SystemExit: for ``--help`` (status 0) or an invalid option (status 2, with
            argparse's message naming it).

    Example:
        >>> args = parse_args(["--dataset", "spiral"])
        >>> args.epochs, args.lr, args.model, str(args.out)
        (100, 0.03, 'mlp', 'build/demo')
    """
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Train a minitorch network on real handwritten digits and draw "
        "what autograd did.",
    )
    parser.add_argument(
        "--epochs",
        type=int,
        default=None,
        help="passes over the training set (default: 20 digits, 100 spiral, 3 mnist)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of everything (default: 0)")
    parser.add_argument(
        "--out", type=Path, default=Path("build/demo"), help="output folder (default: build/demo)"
    )
    parser.add_argument(
        "--dataset",
        choices=("digits", "spiral", "mnist"),
        default="digits",
        help="what to learn: 8x8 digits, 2-d spiral points or MNIST (default: digits)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path("data/mnist"),
        help="folder with the four MNIST IDX files, for --dataset mnist (default: data/mnist)",
    )
    parser.add_argument(
        "--model", choices=("mlp", "cnn"), default="mlp", help="the network (default: mlp)"
    )
    parser.add_argument(
        "--batch-size", type=int, default=32, help="samples per mini-batch (default: 32)"
    )
    parser.add_argument(
        "--lr",
        type=float,
        default=None,
        help=f"Adam's learning rate (default: {DEFAULT_LR['digits']} digits, "
        f"{DEFAULT_LR['spiral']} spiral, {DEFAULT_LR['mnist']} mnist, {CNN_LR} with --model cnn)",
    )
    parser.add_argument("--no-progress", action="store_true", help="plain lines, no bars")
    args = parser.parse_args(argv)
    if args.epochs is None:
        args.epochs = DEFAULT_EPOCHS[args.dataset]
    if args.lr is None:
        args.lr = CNN_LR if args.model == "cnn" else DEFAULT_LR[args.dataset]
    for option, value in (("--epochs", args.epochs), ("--batch-size", args.batch_size)):
        if value < 1:
            parser.error(f"{option} must be at least 1, got {value}")
    if not args.lr > 0:
        parser.error(f"--lr must be positive, got {args.lr}")
    return args


def out_folder_problem(out: Path) -> str | None:
    """Create the output folder if needed and check that a file can be written in it.

    Run before training, so a bad ``--out`` fails in a second instead of after it.

    Args:
        out: the ``--out`` folder.

    Returns:
        ``None`` if the folder is ready, else one line that names ``out`` and says why not.

    Example:
        >>> import tempfile
        >>> out_folder_problem(Path(tempfile.mkdtemp()) / "new") is None
        True
        >>> out_folder_problem(Path(__file__) / "x")  # doctest: +ELLIPSIS
        '--out .../demo.py/x: cannot create this folder: .../demo.py is a file, not a folder'
    """
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):  # deleted again on close
            pass
    except FileExistsError:
        return f"--out {out}: this is a file, not a folder"
    except OSError as exc:
        blocker = next((p for p in out.parents if p.exists()), None)
        if blocker is not None and not blocker.is_dir():
            return f"--out {out}: cannot create this folder: {blocker} is a file, not a folder"
        return f"--out {out}: cannot create or write this folder ({exc.strerror or exc})"
    return None


def renderer_problem() -> str | None:
    """The error of a Graphviz renderer chosen by name but not installed, else ``None``.

    ``MINITORCH_VIZ_RENDERER=dot`` without ``dot`` (or an unknown name there) would
    otherwise stop the demo with a traceback at its first picture; with ``auto`` and no
    renderer at all, the demo runs and writes DOT text instead.

    Returns:
        One line (what was chosen and what to install), or ``None``.
    """
    try:
        viz.renderer.check_choice()
    except (viz.GraphvizNotFoundError, ValueError) as exc:
        return str(exc).removeprefix("viz: ")
    return None


def load_task(args: argparse.Namespace) -> Task:
    """Load both splits of ``--dataset`` as float32 arrays in ``[0, 1]`` and int labels.

    Digits keeps ``minitorch.data.Digits``' fixed 80/20 split (1,438 / 359 samples), so
    accuracies of different seeds are comparable; MNIST's uint8 pixels are scaled by 1/255.

    Shapes:
        ``x_*`` ``(N, 64)`` digits, ``(N, 2)`` spiral, ``(N, 1, 28, 28)`` MNIST, float32;
        ``t_*`` ``(N,)`` int64.

    Args:
        args: the options from :func:`parse_args` (``dataset``, ``data_dir``).

    Returns:
        A :class:`Task`.

    Raises:
        SystemExit: for ``--dataset mnist`` when an IDX file is missing or corrupt, with
            the reader's message naming the file and where to put it; for ``digits``
            without scikit-learn, saying how to install it.
    """
    if args.dataset == "digits":
        try:
            splits: list[data.Dataset] = [data.Digits(train=flag) for flag in (True, False)]
        except ImportError as exc:  # scikit-learn ships the digits
            raise SystemExit(f"demo: {exc}") from exc
        image_shape: tuple[int, int] | None = (8, 8)
    elif args.dataset == "spiral":
        splits = [data.Spiral(train=flag) for flag in (True, False)]
        image_shape = None
    else:
        try:
            splits = [data.MNIST(args.data_dir, train=flag) for flag in (True, False)]
        except (FileNotFoundError, ValueError) as exc:
            raise SystemExit(
                f"demo: --dataset mnist cannot read {args.data_dir}:\n  {exc}"
            ) from exc
        assert splits[0].data is not None
        image_shape = (splits[0].data.shape[-2], splits[0].data.shape[-1])  # 28x28 for MNIST
    (x_train, t_train), (x_test, t_test) = [_arrays(ds, args.dataset) for ds in splits]
    n_classes = int(max(t_train.max(), t_test.max())) + 1
    return Task(args.dataset, x_train, t_train, x_test, t_test, n_classes, image_shape)


def _arrays(ds: data.Dataset, name: str) -> tuple[np.ndarray, np.ndarray]:
    assert ds.data is not None and ds.label is not None
    x = ds.data.astype(np.float32)
    if name == "mnist":  # uint8 pixels 0..255 -> [0, 1], as Digits already is
        x /= np.float32(255.0)
    return x, ds.label.astype(np.int64)


def build_model(args: argparse.Namespace, task: Task) -> tuple[nn.Module, Callable]:
    """The network, seeded by ``--seed``, and the function that shapes a batch for it.

    The MLP is ``in -> 64 -> classes`` with ReLU (30 hidden units for the spiral) and
    reads flat vectors ``(N, H*W)``; the CNN (``examples.models.CNN``) reads images
    ``(N, 1, H, W)``.

    Args:
        args: the options (``model``, ``seed``).
        task: the data, for the input size, the number of classes and the image shape.

    Returns:
        ``(model, prepare)`` where ``prepare(x)`` reshapes an ndarray batch for ``model``.

    Raises:
        SystemExit: for ``--model cnn`` without ``examples/models.py`` or on the spiral.
    """
    minitorch.manual_seed(args.seed)
    n_features = int(np.prod(task.x_train.shape[1:]))
    if args.model == "mlp":
        hidden = 30 if task.name == "spiral" else 64
        model: nn.Module = nn.MLP([n_features, hidden, task.n_classes], "relu", rng=args.seed)
        return model, lambda x: x.reshape(len(x), -1)
    if task.image_shape is None:
        raise SystemExit("demo: --model cnn needs images; use --dataset digits or mnist")
    try:
        from examples.models import CNN
    except ImportError as exc:
        raise SystemExit(f"demo: --model cnn needs examples/models.py ({exc})") from exc
    height, width = task.image_shape
    model = CNN(n_classes=task.n_classes, rng=args.seed)
    return model, lambda x: x.reshape(len(x), 1, height, width)


def train(model: nn.Module, prepare: Callable, task: Task, args: argparse.Namespace) -> History:
    """Train with Adam on shuffled mini-batches; log loss and accuracies once per epoch.

    Each epoch shows a tqdm bar with the running loss and accuracy, and the test
    accuracy when the epoch ends (a plain line per epoch with ``--no-progress``). The
    shuffling is seeded by ``--seed``, so a run is reproducible.

    Args:
        model: the network (trained in place).
        prepare: shapes an ndarray batch for ``model`` (see :func:`build_model`).
        task: the data.
        args: the options (``epochs``, ``batch_size``, ``lr``, ``seed``, ``no_progress``).

    Returns:
        A ``minitorch.History`` with ``loss``, ``train_accuracy`` (running over the
        epoch) and ``test_accuracy`` per epoch.
    """
    train_set = data.ArrayDataset(task.x_train, task.t_train)
    loader = data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True, seed=args.seed)
    optimizer = optim.Adam(model.parameters(), lr=args.lr)
    history = History()
    for epoch in range(1, args.epochs + 1):
        desc = f"epoch {epoch:>{len(str(args.epochs))}}/{args.epochs}"
        keep = args.epochs <= 30 or epoch == args.epochs  # long runs keep only the last bar
        bar = tqdm(
            total=len(loader), desc=desc, unit="batch", disable=args.no_progress, leave=keep
        )
        with bar:
            loss, acc = run_epoch(model, prepare, loader, optimizer, bar)
            test_acc = evaluate(model, prepare, task.x_test, task.t_test)[1]
            bar.set_postfix_str(f"loss {loss:.4f}, acc {acc:.1%}, test acc {test_acc:.1%}")
        history.log(epoch=epoch, loss=loss, train_accuracy=acc, test_accuracy=test_acc)
        if args.no_progress:
            print(f"{desc}: loss {loss:.4f}, accuracy {acc:.1%}, test accuracy {test_acc:.1%}")
    return history


def run_epoch(
    model: nn.Module,
    prepare: Callable,
    loader: data.DataLoader,
    optimizer: optim.Optimizer,
    bar: tqdm,
) -> tuple[float, float]:
    """One pass over ``loader``: forward, backward, step, per mini-batch.

    Returns:
        The epoch's mean loss and accuracy over its samples.
    """
    model.train()
    total_loss, correct, seen = 0.0, 0, 0
    for x, t in loader:
        logits = model(prepare(x))
        loss = F.softmax_cross_entropy(logits, t)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += float(loss.item()) * len(t)
        correct += int((logits.data.argmax(axis=1) == t).sum())
        seen += len(t)
        bar.set_postfix_str(f"loss {total_loss / seen:.4f}, acc {correct / seen:.1%}", False)
        bar.update()
    return total_loss / seen, correct / seen


def evaluate(
    model: nn.Module, prepare: Callable, x: np.ndarray, t: np.ndarray
) -> tuple[np.ndarray, float]:
    """Predict labels in eval mode, without building a graph.

    Shapes:
        ``x`` ``(N, ...)``, ``t`` ``(N,)`` -> predicted ``(N,)`` int64.

    Returns:
        ``(predicted, accuracy)`` with ``accuracy`` in ``[0, 1]``.
    """
    model.eval()
    with minitorch.no_grad():
        logits = model(prepare(x))
    predicted = logits.data.argmax(axis=1)
    return predicted, float((predicted == t).mean())


def write_stepper_page(
    model: nn.Module, prepare: Callable, task: Task, args: argparse.Namespace
) -> Path:
    """Write ``backward.html`` from the untrained network and its first training batch.

    The batch is the first one :func:`train` will draw (the same seeded shuffle), and
    the gradients of this backward are cleared again, so training is unchanged.

    Returns:
        The path written.
    """
    train_set = data.ArrayDataset(task.x_train, task.t_train)
    loader = data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True, seed=args.seed)
    x, t = next(iter(loader))
    path = save_backward_stepper(model, prepare, x, t, args.out)
    print(f"  wrote {path} (the backward pass of the untrained network's first batch)")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """Train, report and draw, as described in the module docstring.

    Args:
        argv: the command line without the program name (``None``: ``sys.argv[1:]``).

    Returns:
        The exit status: 0, or 2 (after a one-line message) when the ``--out`` folder
        cannot be created or written, or the renderer named by ``MINITORCH_VIZ_RENDERER``
        is not installed; both are checked before training.

    Raises:
        SystemExit: for ``--help``, a bad option, missing MNIST files or ``--model cnn``
            without ``examples/models.py``; the message says what to do.
    """
    import matplotlib

    matplotlib.use("Agg")  # files only: no window, works without a display
    start = time.perf_counter()
    args = parse_args(argv)
    problem = out_folder_problem(args.out) or renderer_problem()
    if problem is not None:
        print(f"{PROG}: error: {problem}", file=sys.stderr)
        return 2
    task = load_task(args)
    model, prepare = build_model(args, task)
    print(
        f"minitorch demo: {args.model.upper()} on {task.name} ({len(task.t_train)} train / "
        f"{len(task.t_test)} test samples), {args.epochs} epochs, seed {args.seed}"
    )
    page = write_stepper_page(model, prepare, task, args)
    train_start = time.perf_counter()
    history = train(model, prepare, task, args)
    train_time = time.perf_counter() - train_start
    predicted, accuracy = evaluate(model, prepare, task.x_test, task.t_test)
    correct = int((predicted == task.t_test).sum())
    print(
        f"final test accuracy: {accuracy:.2%} ({correct} of {len(task.t_test)} test "
        f"{SAMPLE_NOUN[task.name]}) after {train_time:.2f} s of training"
    )
    have_dot = dot_available()
    print(f"writing pictures into {args.out}/")
    draw_pictures(model, prepare, task, history, predicted, args.out, have_dot)
    if not have_dot:
        print(INSTALL_DOT)
    print(f"open {page} in a browser and press \u2192 to step through backward")
    print(f"wall time: {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
