"""PyTorch's ``dim=``/``keepdim=`` on the reductions get NumPy's names in the error.

Regression (fresh-user trial, h35 item 3): ``F.sum(x, dim=1)`` failed with Python's bare
"unexpected keyword argument 'dim'".
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch.ops as F
from minitorch import Variable

REDUCTIONS = ["sum", "mean", "max", "min", "logsumexp", "var", "std"]


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("keyword, numpy_name", [("dim", "axis="), ("keepdim", "keepdims=")])
def test_torch_keyword_names_the_numpy_keyword(name, keyword, numpy_name):
    x = Variable(np.ones((2, 3)))
    message = f"{name}\\(\\) got an unexpected keyword argument '{keyword}'.*{numpy_name}"
    with pytest.raises(TypeError, match=message):
        getattr(F, name)(x, **{keyword: 1})
    if name != "logsumexp":  # every other one is also a method, bound to the same op
        with pytest.raises(TypeError, match=message):
            getattr(x, name)(**{keyword: 1})


@pytest.mark.parametrize("name", REDUCTIONS)
def test_numpy_keywords_still_work_and_the_signature_is_kept(name):
    import inspect

    x = Variable(np.arange(6.0).reshape(2, 3))
    y = getattr(F, name)(x, axis=1, keepdims=True)
    assert y.shape == (2, 1)
    assert list(inspect.signature(getattr(F, name)).parameters)[:3] == ["x", "axis", "keepdims"]


def test_other_unknown_keywords_keep_python_s_message():
    with pytest.raises(TypeError, match=r"^sum\(\) got an unexpected keyword argument 'foo'$"):
        F.sum(Variable(np.ones(2)), foo=1)


@pytest.mark.parametrize("op", [F.softmax, F.log_softmax])
def test_softmax_family_names_axis_for_dim(op):
    # Fresh-user trial: softmax is where PyTorch users most often write dim=.
    with pytest.raises(TypeError, match=r"'dim' \(PyTorch's name\): minitorch uses NumPy's"):
        op(np.ones((2, 3)), dim=1)
