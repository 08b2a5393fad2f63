# %% [markdown]
# # 11 · Convolutions and recurrent networks
#
# A fully connected layer treats an image as a bag of 64 unrelated numbers and a
# sequence as a fixed-size vector. Two architectures build structure in: a
# **convolution** slides one small filter over every position of an image, and a
# **recurrent** layer applies one cell at every time step, carrying a state along.
# Both *share weights* across positions — and autograd handles that sharing exactly as it
# handles a variable used twice: it adds up the gradients.
#
# **Learning goals.** After this notebook you can
#
# 1. compute a 2-D convolution (cross-correlation) by hand and predict its output shape;
# 2. explain how `im2col` turns a convolution into one matrix product, and why its
#    gradient is again a convolution;
# 3. train a small CNN on the digits and look at its filters;
# 4. write an RNN step, and train an RNN with truncated backpropagation through time.

# %%
%matplotlib inline
import matplotlib.pyplot as plt
import numpy as np

import minitorch.ops as F
from checks import check_close, check_gradient, check_true, ok
from checks_build import (check_close_diagnosed, check_connected, exercise, pieces_used,
                          yours_or_reference)
from checks_nb08 import check_backward
from checks_nb11 import (check_clip, check_col2im, check_conv2d_naive, check_conv_backward,
                         check_conv_output_size,
                         check_im2col, check_rnn_step, dead_filters, lstm_diagnosis,
                         lstm_reference, maxpool_variants, reference_clip,
                         reference_im2col)
from minitorch import Function, Variable, data, manual_seed, nn, no_grad, optim
from pictures import diverging_image, draw_im2col, draw_maxpool_backward, draw_unrolled_rnn

# %% [markdown]
# ## A convolution, one window at a time
#
# A filter `W` of size $K \times K$ visits every $K \times K$ window of the image; at
# each position the output is the sum of the elementwise product (deep-learning
# libraries call this "convolution", mathematicians "cross-correlation"). Here is a
# vertical-edge filter on a tiny image: it responds where brightness changes from left
# to right.

# %%
image = np.zeros((6, 6))
image[:, 3:] = 1.0  # dark left half, bright right half
edge = np.array([[-1.0, 0.0, 1.0]] * 3)
out = F.conv2d(image[None, None], edge[None, None])  # add batch and channel axes
print(f"image (1, 1, 6, 6) * filter (1, 1, 3, 3) -> {out.shape}")
print(out.data[0, 0])

# %% [markdown]
# The output is smaller than the input: a $K \times K$ window fits
# $H - K + 1$ times along an axis of length $H$. With `padding` $P$ zeros added on each
# side and a `stride` $S$ between windows, the size is
# $\lfloor (H + 2P - K) / S \rfloor + 1$.
#
# ## Why im2col?
#
# Python loops over windows are slow. `im2col` copies every window into one column of
# a matrix; the convolution becomes a single matrix product of the flattened filters
# with that matrix, which NumPy runs at BLAS speed. The backward pass is the same trick
# in reverse: `col2im` adds each column's gradient back into the window it came from —
# adding, because overlapping windows share pixels. So the gradient of a convolution
# is itself a (transposed) convolution, and minitorch's `conv2d` is differentiable to any
# order.

# %% [markdown]
# The picture shows it on a 5×5 image with a 3×3 window: window $(i, j)$ — here
# $(1, 0)$, outlined — becomes column $i \cdot W_{out} + j$ of a $9 \times 9$ matrix,
# its nine pixels read row by row. A filter flattened the same way is one row, so row
# times matrix computes all nine outputs at once. Neighbouring windows overlap, so most
# pixels appear in several columns.

# %%
draw_im2col(np.arange(25.0).reshape(5, 5), 3, window=(1, 0))
plt.show()

# %%
cols = F.im2col(Variable(image[None, None]), 3)
print(f"im2col: {cols.shape} = (batch, 1 channel x 3 x 3 values, {cols.shape[2]} windows)")
x_var = Variable(image[None, None])
w_var = Variable(edge[None, None])
F.conv2d(x_var, w_var).sum().backward()
print("gradient w.r.t. the image (per pixel: the sum of the filter weights that saw it):")
print(x_var.grad.data[0, 0])

# %% [markdown]
# ## A small CNN on the digits
#
# Eight $3 \times 3$ filters with padding 1 keep the $8 \times 8$ size; ReLU; a $2 \times 2$
# max-pool halves it; a linear layer maps the $8 \times 4 \times 4$ features to 10 scores.
# That is 80 + 1290 parameters, versus 4810 for an MLP with 64 hidden units.

# %%
digits_train = data.Digits(train=True, flatten=False)
digits_test = data.Digits(train=False, flatten=False)
manual_seed(0)
cnn = nn.Sequential(
    nn.Conv2d(1, 8, 3, padding=1, rng=0),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(8 * 4 * 4, 10, rng=1),
)
print(cnn)
print(f"parameters: {sum(p.size for p in cnn.parameters())}")
optimizer = optim.Adam(cnn.parameters(), lr=0.01)
loader = data.DataLoader(digits_train, batch_size=64, shuffle=True, seed=0)
test_accuracy = []
for epoch in range(8):
    for x_batch, t_batch in loader:
        loss = F.softmax_cross_entropy(cnn(x_batch), t_batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with no_grad():
        test_accuracy.append(F.accuracy(cnn(digits_test.data), digits_test.label))
print(f"test accuracy after {len(test_accuracy)} epochs: {test_accuracy[-1]:.2f}")

# %% [markdown]
# The pooling layer passes on only the largest value of each $2 \times 2$ window, so its
# backward sends each incoming gradient to that one winner and zero to the other three:
#
# (the red squares mark each window's maximum; the gradient lands exactly there.)

# %%
pool_x = np.array([[1.0, 3, 2, 0], [4, 2, 1, 5], [0, 1, 3, 2], [2, 6, 1, 1]])
draw_maxpool_backward(pool_x, np.array([[1.0, 2.0], [3.0, 4.0]]))
plt.show()

# %% [markdown]
# What did the filters learn? Each is a $3 \times 3$ pattern, drawn with red for
# positive and blue for negative weights, white for zero — on one colour scale for all
# eight, so the colours compare (the bar gives the values). The feature maps below show
# where in a digit each pattern was found, after the ReLU.

# %%
filters = cnn[0].W.data  # (8, 1, 3, 3)
sample = digits_test.data[:1]
with no_grad():
    maps = F.relu(cnn[0](sample)).data[0]  # (8, 8, 8): one map per filter
    all_maps = F.relu(cnn[0](digits_test.data)).data  # (359, 8, 8, 8)
dead = dead_filters(all_maps.max(axis=0))  # zero on every test image
limit = float(np.abs(filters).max())
fig, axes = plt.subplots(2, 9, figsize=(11, 2.8))
axes[0, 0].imshow(sample[0, 0], cmap="gray_r")
axes[0, 0].set_title("input", fontsize=8)
axes[1, 0].axis("off")
for k in range(8):
    image_k = diverging_image(axes[0, k + 1], filters[k, 0], limit=limit)
    axes[0, k + 1].set_title(f"filter {k}" + (" (dead)" if k in dead else ""), fontsize=8)
    axes[1, k + 1].imshow(maps[k], cmap="viridis", vmin=0, vmax=float(maps.max()))
for ax in axes.flat:
    ax.set_xticks([])
    ax.set_yticks([])
fig.colorbar(image_k, ax=axes[0, :].tolist(), shrink=0.9, label="weight")
plt.show()
print(f"filters whose ReLU output is zero on all {len(digits_test)} test images: {dead}")

# %% [markdown]
# A **dead filter** (if the line above lists one) answers with a negative number
# everywhere, on every image: the ReLU turns all of it into zero, so the gradient that
# reaches its weights is zero too, and it can never recover — its map is uniformly dark.
# It is a wasted unit. Common remedies are a smaller learning rate, a `leaky_relu`
# (a small slope below zero keeps a gradient), or another initialisation.

# %% [markdown]
# ## Recurrent networks
#
# An RNN reads a sequence one step at a time with the same cell:
# $h_t = \tanh(x_t W_x^\top + h_{t-1} W_h^\top + b)$. The state $h_t$ summarises everything
# seen so far. Backpropagation runs backwards through all the steps — *backpropagation
# through time* — and because $W_h$ is used at every step, its gradient is the sum over
# steps.
#
# Long sequences make long graphs. **Truncated** BPTT backpropagates every 30 steps and
# then cuts the graph behind the state (`unchain_backward`), keeping the state's *value*
# but dropping its history, so memory stays bounded.
#
# In the picture, each cell is one time step of the same layer. The forward pass (grey)
# runs through all steps, and the state's *value* crosses every cut. The backward pass
# (red) runs from each loss back to the last cut and stops there.
#
# The task: given the current value of a noisy sine wave, predict the next one.

# %%
draw_unrolled_rnn(steps=9, bptt=3)
plt.show()

# %%
class SineRNN(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.rnn = nn.RNN(1, hidden, rng=0)
        self.out = nn.Linear(hidden, 1, rng=1)

    def reset_state(self):
        self.rnn.reset_state()

    def forward(self, x):
        return self.out(self.rnn(x))


train_seq = data.SineCurve(train=True, sequence=True, num_samples=400, cycles=4)
manual_seed(0)
rnn_model = SineRNN(16)
rnn_opt = optim.Adam(rnn_model.parameters(), lr=0.01)
bptt = 30
epoch_losses = []
for epoch in range(15):
    rnn_model.reset_state()
    loss, count, total = 0, 0, 0.0
    for x_t, t_t in zip(train_seq.data, train_seq.label):
        y = rnn_model(x_t.reshape(1, 1))
        loss = loss + F.mean_squared_error(y, t_t.reshape(1, 1))
        count += 1
        if count % bptt == 0 or count == len(train_seq):
            rnn_opt.zero_grad()
            loss.backward()
            loss.unchain_backward()  # truncate: forget the graph, keep the state
            rnn_opt.step()
            total += loss.item()
            loss = 0
    epoch_losses.append(total / len(train_seq))
print(f"mean squared error per step: first epoch {epoch_losses[0]:.2f}, "
      f"last {epoch_losses[-1]:.2f}")

# %%
test_seq = data.SineCurve(train=False, sequence=True, num_samples=200, cycles=2)
rnn_model.reset_state()
with no_grad():
    predictions = [rnn_model(x_t.reshape(1, 1)).item() for x_t in test_seq.data]
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.2))
ax1.plot(epoch_losses, "o-")
ax1.set_xlabel("epoch")
ax1.set_ylabel("MSE per step")
ax1.set_title("RNN training")
ax2.plot(test_seq.label[:, 0], label="true next value (cos)")
ax2.plot(predictions, "--", label="RNN prediction")
ax2.legend(fontsize=8)
ax2.set_title("predicting a clean cosine it never saw")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Exercises
#
# In each exercise cell, replace `raise NotImplementedError()` (and the comment above it)
# with your code, run the cell, then run the check cell below it.
#
# ### Exercise 1 — convolution with loops
#
# Write `conv2d_naive(x, w)` for a single 2-D image `x` of shape `(H, W)` and a single
# filter `w` of shape `(K, K)`, with stride 1 and no padding: output position `(i, j)`
# is `np.sum(x[i:i+K, j:j+K] * w)`.

# %%
def conv2d_naive(x, w):
    ### BEGIN SOLUTION
    k = w.shape[0]
    h_out, w_out = x.shape[0] - k + 1, x.shape[1] - k + 1
    out = np.zeros((h_out, w_out))
    for i in range(h_out):
        for j in range(w_out):
            out[i, j] = np.sum(x[i : i + k, j : j + k] * w)
    return out
    ### END SOLUTION

# %% tags=["check"]
check_conv2d_naive(globals().get("conv2d_naive"))
ok("conv2d_naive matches conv2d")

# %% [markdown]
# ### Exercise 2 — output size
#
# Write `conv_output_size(h, k, stride, padding)` from the formula above.

# %%
def conv_output_size(h, k, stride=1, padding=0):
    ### BEGIN SOLUTION
    return (h + 2 * padding - k) // stride + 1
    ### END SOLUTION

# %% tags=["check"]
check_conv_output_size(globals().get("conv_output_size"))
ok("conv_output_size follows floor((H + 2P - K) / S) + 1")

# %% [markdown]
# ### Exercise 3 — `im2col`
#
# Write `im2col_np(x, k)` for a batch `x` of shape `(N, C, H, W)`, a `k × k` window,
# stride 1 and no padding. It returns an array of shape `(N, C·k·k, H_out·W_out)` with
# `H_out = H - k + 1`, `W_out = W - k + 1`: column `i * W_out + j` holds the window
# `x[:, :, i:i+k, j:j+k]`, flattened per example (`.reshape(N, -1)`, which orders it by
# channel, then row, then column — the order of a flattened filter `W.reshape(C_out, -1)`).
# Two loops over `i` and `j` are fine.

# %%
def im2col_np(x, k):
    ### BEGIN SOLUTION
    n, c, h, w = x.shape
    oh, ow = h - k + 1, w - k + 1
    col = np.zeros((n, c * k * k, oh * ow))
    for i in range(oh):
        for j in range(ow):
            col[:, :, i * ow + j] = x[:, :, i : i + k, j : j + k].reshape(n, -1)
    return col
    ### END SOLUTION

# %% tags=["check"]
check_im2col(globals().get("im2col_np"))
ok("im2col_np matches F.im2col")

# %% [markdown]
# ### Exercise 4 — `col2im`, the way back
#
# The backward of `im2col` is `col2im_np(col, x_shape, k)`: it takes an array shaped
# like `im2col`'s output and **adds** each column back into the window it came from,
# giving an array of shape `x_shape`. Adding, not copying: a pixel that is in several
# windows collects a contribution from each (a value used several times gets the sum of
# its gradients, as always). Start from `np.zeros(x_shape)` and use `+=`.

# %%
def col2im_np(col, x_shape, k):
    ### BEGIN SOLUTION
    n, c, h, w = x_shape
    oh, ow = h - k + 1, w - k + 1
    x = np.zeros(x_shape)
    for i in range(oh):
        for j in range(ow):
            x[:, :, i : i + k, j : j + k] += col[:, :, i * ow + j].reshape(n, c, k, k)
    return x
    ### END SOLUTION

# %% tags=["check"]
check_col2im(globals().get("col2im_np"))
ok("col2im_np adds every column back into its window: the adjoint of im2col")

# %% [markdown]
# ### Exercise 5 — a convolution built on them, forward and backward
#
# With `im2col` the convolution of `x` `(N, C, H, W)` with filters `W` `(C_out, C, k, k)`
# is one product: flatten the filters to `W2 = W.reshape(C_out, -1)`; then
# `y[n] = W2 @ col[n]`, shape `(C_out, H_out·W_out)`, reshaped to `(C_out, H_out, W_out)`.
# (`W2 @ col` broadcasts over the batch axis.) For the backward, with `gy` reshaped to
# `(N, C_out, H_out·W_out)` like `y`:
#
# * $g_{W2} = \sum_n g_y[n]\, \mathrm{col}[n]^\top$ — the matrix-product rule of
#   notebook 07, summed over the batch because the same filter is used for every image;
#   reshape it to `W.shape`;
# * $g_{\mathrm{col}} = W2^\top g_y$, and `col2im` turns it into $g_x$.
#
# Finish `forward`, then write `backward(self, gy)` with minitorch ops on the Variables
# `self.inputs` and `gy`, as notebook 08 taught, so that it is differentiable too: the ops
# `F.im2col(x, k)` and `F.col2im(gcol, x.shape[2:], k)` are your Exercises 3 and 4 as
# recorded operations, and `F.reshape`, `F.transpose(a, axes)`, `F.sum(a, axis=0)`, `@`
# and `.T` do the rest (`@` broadcasts over the batch axis). The forward builds on
# Exercise 3: the next cell picks your `im2col_np` if it passes, a reference otherwise, as
# `unfold`.

# %%
# globals().get: None (and the reference) if the exercise cell never defined the function
unfold = yours_or_reference("im2col_np", globals().get("im2col_np"), reference_im2col,
                            check_im2col)

# %%
class ConvIm2col(Function):
    """y = conv2d(x, W), stride 1, no padding, computed as one matrix product."""

    def forward(self, x, W):
        self.k = W.shape[2]
        col = unfold(x, self.k)  # (N, C*k*k, H_out*W_out)
        n, h_out, w_out = x.shape[0], x.shape[2] - self.k + 1, x.shape[3] - self.k + 1
        ### BEGIN SOLUTION
        y = W.reshape(W.shape[0], -1) @ col
        return y.reshape(n, W.shape[0], h_out, w_out)
        ### END SOLUTION

    def backward(self, gy):
        x, W = self.inputs
        ### BEGIN SOLUTION
        col = F.im2col(x, self.k)  # (N, C*k*k, L), in the graph
        gy2 = F.reshape(gy, (gy.shape[0], gy.shape[1], -1))  # (N, C_out, L)
        W2 = F.reshape(W, (W.shape[0], -1))  # (C_out, C*k*k)
        gW = F.reshape(F.sum(gy2 @ F.transpose(col, (0, 2, 1)), axis=0), W.shape)
        gx = F.col2im(W2.T @ gy2, x.shape[2:], self.k)
        return gx, gW
        ### END SOLUTION

# %% tags=["check"]
check_rng = np.random.default_rng(5)
x_conv, w_conv = check_rng.standard_normal((2, 3, 5, 5)), check_rng.standard_normal((4, 3, 3, 3))
with exercise("ConvIm2col forward", ("ValueError", "the flattened filters W2, (C_out, C*k*k), "
              "go on the left: W2 @ col, shape (N, C_out, H_out*W_out)")):
    y_conv = ConvIm2col()(x_conv, w_conv)
y_ref = F.conv2d(x_conv, w_conv).data
check_close("ConvIm2col forward", y_conv, y_ref,
            hint="flatten W to (C_out, C*k*k), multiply with col, reshape to "
            "(N, C_out, H_out, W_out)", mistakes={
                "W2 @ col is (N, C_out, L): reshape it to (N, C_out, H_out, W_out), channels "
                "first":
                    y_ref.reshape(2, 4, -1).reshape(2, 3, 3, 4).transpose(0, 3, 1, 2)})
check_conv_backward(ConvIm2col, x_conv, w_conv)
ok(f"your im2col convolution matches conv2d, forward and backward "
   f"({pieces_used('im2col_np')} in forward)")

# %% [markdown]
# ### Exercise 6 — max-pool's backward
#
# `MaxPool2x2` keeps the largest of each non-overlapping $2 \times 2$ window. Its forward
# (given) records, for every window, which of its four entries won: `self.argmax` has
# shape `(N, C, H/2, W/2)` with values 0..3 for the positions (0,0), (0,1), (1,0), (1,1)
# of the window. Write `backward(self, gy)`: the gradient has `x`'s shape, zero except at
# each window's winner, which gets that window's `gy` — the picture above, in code. Build
# the `mask` of winners in NumPy (loops over the windows are fine; `divmod(a, 2)` turns a
# winner `a` into its (row, column)), then return `upsample(gy) * mask`: `upsample`
# (given) copies each entry of `gy` into its $2 \times 2$ window with minitorch ops, so the
# gradient stays differentiable in `gy`.

# %%
def upsample(g):
    """Each entry of g (N, C, h, w) copied into a 2x2 window: (N, C, 2h, 2w), in the graph."""
    n, c, h, w = g.shape
    g6 = F.broadcast_to(F.reshape(g, (n, c, h, 1, w, 1)), (n, c, h, 2, w, 2))
    return F.reshape(g6, (n, c, 2 * h, 2 * w))


class MaxPool2x2(Function):
    def forward(self, x):
        n, c, h, w = x.shape
        windows = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5)
        windows = windows.reshape(n, c, h // 2, w // 2, 4)
        self.argmax = windows.argmax(axis=-1)
        return windows.max(axis=-1)

    def backward(self, gy):
        (x,) = self.inputs
        ### BEGIN SOLUTION
        mask = np.zeros(x.shape)  # 1 at each window's maximum
        for index in np.ndindex(self.argmax.shape):
            n, c, i, j = index
            r, s = divmod(int(self.argmax[index]), 2)
            mask[n, c, 2 * i + r, 2 * j + s] = 1.0
        return upsample(gy) * mask
        ### END SOLUTION

# %% tags=["check"]
check_rng = np.random.default_rng(6)
x_pool = check_rng.permutation(32).reshape(1, 2, 4, 4).astype(float)  # no ties
gy_pool = check_rng.standard_normal((1, 2, 2, 2))
with exercise("MaxPool2x2", ("IndexError", "the winner of window (i, j) is at row 2*i + r "
              "and column 2*j + s of x, with r, s = divmod(a, 2)"),
              ("ValueError", "gy has the pooled shape (N, C, H/2, W/2): upsample(gy) has x's "
               "shape, like the mask")):
    xv = Variable(x_pool)
    (MaxPool2x2()(xv) * gy_pool).sum().backward()
xr = Variable(x_pool)
(F.max_pool2d(xr, 2) * gy_pool).sum().backward()
spread = np.repeat(np.repeat(gy_pool, 2, axis=2), 2, axis=3)
at_max = (xr.grad.data != 0).astype(float)
check_close_diagnosed("MaxPool2x2's gradient", xv.grad, xr.grad.data, [
    *maxpool_variants(x_pool, gy_pool),
    ("you sent gy to all four entries of each window: only the maximum gets it", spread),
    ("that is average pooling's gradient (gy / 4 everywhere): only the maximum gets gy",
     spread / 4),
    ("the winners are right, but each should get its window's gy, not 1", at_max),
    ("the sign is flipped", -xr.grad.data)],
    hint="gx is zero except at each window's argmax, which gets that window's gy")
check_backward("MaxPool2x2", MaxPool2x2, x_pool)
ok("MaxPool2x2 sends each gradient to its window's maximum")

# %% [markdown]
# ### Exercise 7 — one RNN step
#
# Write `rnn_step(x, h, Wx, Wh, b)` returning
# $\tanh(x W_x^\top + h W_h^\top + b)$ with minitorch ops (`@`, `.T`, `F.tanh`), for `x` of
# shape `(N, D)`, `h` of shape `(N, H)`, `Wx` `(H, D)`, `Wh` `(H, H)` and `b` `(H,)`.

# %%
def rnn_step(x, h, Wx, Wh, b):
    ### BEGIN SOLUTION
    return F.tanh(x @ Wx.T + h @ Wh.T + b)
    ### END SOLUTION

# %% tags=["check"]
# the values, against NumPy, with the typical slips named
check_rnn_step(globals().get("rnn_step"))
check_rng = np.random.default_rng(3)  # its own generator: independent of exercise 1
shapes = [(2, 3), (2, 4), (4, 3), (4, 4), (4,)]
args = [check_rng.standard_normal(s) * 0.5 for s in shapes]
with exercise("rnn_step"):
    out = rnn_step(*[Variable(a) for a in args])
xs, hs, wx, wh, bs = args
reference = nn.RNN(3, 4)  # minitorch's RNN layer with the same weights and state
reference.x2h.W.data, reference.x2h.b.data, reference.h2h.W.data = wx, bs, wh
reference.h = Variable(hs)
with no_grad():
    check_close("rnn_step (against nn.RNN with the same weights)", out, reference(xs))
check_connected("rnn_step", rnn_step, *args)
check_gradient("rnn_step", rnn_step, *args)
ok("rnn_step is right, and autograd differentiates it w.r.t. all five inputs")

# %% [markdown]
# ### Exercise 8 — an LSTM cell
#
# A plain RNN multiplies the gradient by $W_h$ (and a tanh slope) once per step, so over
# many steps it vanishes or explodes. The **LSTM** (Hochreiter & Schmidhuber, 1997) adds a
# *cell state* $c$ that is updated additively, with gates deciding what to forget, what
# to write and what to show. With $z = x W^\top + h U^\top + b$ split into four blocks of
# $H$ columns, in the order $i, f, g, o$ (PyTorch's and minitorch's):
#
# $$i = \sigma(z_i),\; f = \sigma(z_f),\; g = \tanh(z_g),\; o = \sigma(z_o), \qquad
# c_{new} = f \odot c + i \odot g, \qquad h_{new} = o \odot \tanh(c_{new}).$$
#
# Write `lstm_cell(x, h, c, W, U, b)` with minitorch ops (`@`, `.T`, `F.sigmoid`,
# `F.tanh`, and slicing `z[:, 0:H]`), returning `(h_new, c_new)`. Shapes: `x` `(N, D)`,
# `h` and `c` `(N, H)`, `W` `(4H, D)`, `U` `(4H, H)`, `b` `(4H,)`. Autograd then gives
# every gradient; the check compares them with finite differences (`gradcheck`).

# %%
def lstm_cell(x, h, c, W, U, b):
    ### BEGIN SOLUTION
    H = h.shape[1]
    z = x @ W.T + h @ U.T + b
    i = F.sigmoid(z[:, 0:H])
    f = F.sigmoid(z[:, H : 2 * H])
    g = F.tanh(z[:, 2 * H : 3 * H])
    o = F.sigmoid(z[:, 3 * H : 4 * H])
    c_new = f * c + i * g
    return o * F.tanh(c_new), c_new
    ### END SOLUTION

# %% tags=["check"]
check_rng = np.random.default_rng(8)
lstm_args = [check_rng.standard_normal(s) * 0.6 for s in [(3, 4), (3, 2), (3, 2), (8, 4),
                                                         (8, 2), (8,)]]  # N=3, D=4, H=2
with exercise("lstm_cell", ("ValueError", "H = h.shape[1], the state size: each gate is "
              "z[:, k*H:(k+1)*H], shaped like h and c")):
    result = lstm_cell(*[Variable(a) for a in lstm_args])
check_true(isinstance(result, (tuple, list)) and len(result) == 2,
           f"lstm_cell should return two values, (h_new, c_new), got a {type(result).__name__}")
h_new, c_new = result
check_true(hasattr(h_new, "creator") and hasattr(c_new, "creator"),
           "lstm_cell should return Variables built with minitorch ops (this is an ndarray: "
           "use F.sigmoid / F.tanh, not np.*)")
h_ref, c_ref = lstm_reference(*lstm_args)
# every gate order and every sigmoid/tanh choice is tried: a match names the difference
slip = lstm_diagnosis(np.asarray(h_new.data), np.asarray(c_new.data), lstm_args)
check_true(not slip, f"lstm_cell: {slip}")
check_close("c_new", c_new, c_ref,
            hint="H = h.shape[1] is the state size; z has 4H columns, i, f, g, o")
check_close("h_new", h_new, h_ref, hint="h_new = o * tanh(c_new)")
check_connected("lstm_cell", lstm_cell, *lstm_args)
check_gradient("lstm_cell", lstm_cell, *lstm_args)
ok("lstm_cell matches the LSTM equations, and gradcheck agrees with its gradients")

# %% [markdown]
# ### Exercise 9 — gradient clipping against an exploding RNN
#
# When the recurrent weights are large, the gradient grows by a factor at every step it
# travels back, and one bad step can throw the weights far away (Pascanu, Mikolov &
# Bengio, 2013). **Clipping** rescales all gradients together when their global norm
# $\lVert g \rVert = \sqrt{\sum_p \sum g_p^2}$ exceeds `max_norm`:
# $g_p \leftarrow g_p \cdot \text{max\_norm} / \lVert g \rVert$ — the same factor for
# every parameter, so the direction of the step is kept.
#
# Write `clip_grad_norm(params, max_norm)`: compute the global norm over the parameters
# that have a gradient, rescale their gradients in place if it is larger than `max_norm`
# (assign `p.grad = Variable(p.grad.data * scale)`), and return the norm before clipping.
# After the check, the cell below trains an RNN whose recurrent weights start large, with
# and without your clipping.

# %%
def clip_grad_norm(params, max_norm):
    ### BEGIN SOLUTION
    grads = [p for p in params if p.grad is not None]
    norm = float(np.sqrt(sum(np.sum(p.grad.data**2) for p in grads)))
    if norm > max_norm:
        for p in grads:
            p.grad = Variable(p.grad.data * (max_norm / norm))
    return norm
    ### END SOLUTION

# %% tags=["check"]
check_clip(globals().get("clip_grad_norm"))
ok("clip_grad_norm rescales all gradients together, only when the norm is too large")

# %%
def train_exploding(clip, steps=150, bptt=20):
    """SGD on the sine task with recurrent weights 4x too large; gradient norms per update."""
    manual_seed(0)
    model = SineRNN(16)
    model.rnn.h2h.W.data *= 4.0  # a recurrent matrix with gain > 1: gradients explode
    opt = optim.SGD(model.parameters(), lr=0.05)
    norms, loss = [], 0
    model.reset_state()
    for count, (x_t, t_t) in enumerate(zip(train_seq.data[:steps], train_seq.label[:steps])):
        loss = loss + F.mean_squared_error(model(x_t.reshape(1, 1)), t_t.reshape(1, 1))
        if (count + 1) % bptt == 0:
            opt.zero_grad()
            loss.backward()
            loss.unchain_backward()
            params = list(model.parameters())
            norms.append(clip(params, 1.0) if clip else float(np.sqrt(sum(
                np.sum(p.grad.data.astype(float) ** 2) for p in params))))
            opt.step()
            loss = 0
    return norms


unclipped = train_exploding(None)
clip_fn = yours_or_reference("clip_grad_norm", globals().get("clip_grad_norm"), reference_clip,
                             check_clip)
clipped = train_exploding(clip_fn)
fig, ax = plt.subplots(figsize=(6, 3))
ax.semilogy(unclipped, "o-", label="no clipping")
ax.semilogy(clipped, "s-", label="clipped to norm 1")
ax.set_xlabel("update")
ax.set_ylabel("gradient norm (before clipping)")
ax.legend()
ax.set_title("an RNN with large recurrent weights")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Summary
#
# * A convolution slides one small filter over the image: few parameters, shared across
#   positions; output size $\lfloor (H + 2P - K)/S \rfloor + 1$.
# * `im2col` makes it one matrix product; its backward, `col2im`, adds gradients of
#   overlapping windows — the gradient of a convolution is a convolution.
# * An RNN applies one cell at every step; backprop through time sums the gradients of
#   the shared weights over the steps, and truncation (`unchain_backward`) bounds memory.
# * Weight sharing needs nothing new from autograd: a value used many times collects the
#   sum of its gradients.
# * Max-pool's backward routes each gradient to its window's maximum.
# * An LSTM carries a cell state updated additively through gates; clipping the global
#   gradient norm keeps an exploding RNN's steps bounded.
#
# From here, read the source of `minitorch/ops/conv.py` and `minitorch/nn/recurrent.py`
# — after these notebooks, every line should make sense.
#
# **Next:** [12 · Forward and reverse mode](12_forward_and_reverse_mode.ipynb), then the
# capstone, [13 · Your own framework](13_your_own_framework.ipynb).
