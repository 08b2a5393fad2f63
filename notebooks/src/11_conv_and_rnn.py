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
from minitorch import Variable, data, manual_seed, nn, no_grad, optim

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
# What did the filters learn? Each is a $3 \times 3$ pattern; the feature maps show where
# in a digit each pattern was found.

# %%
filters = cnn[0].W.data  # (8, 1, 3, 3)
sample = digits_test.data[:1]
with no_grad():
    maps = F.relu(cnn[0](sample)).data[0]  # (8, 8, 8): one map per filter
fig, axes = plt.subplots(2, 9, figsize=(10, 2.6))
axes[0, 0].imshow(sample[0, 0], cmap="gray_r")
axes[0, 0].set_title("input", fontsize=8)
axes[1, 0].axis("off")
for k in range(8):
    axes[0, k + 1].imshow(filters[k, 0], cmap="RdBu")
    axes[0, k + 1].set_title(f"filter {k}", fontsize=8)
    axes[1, k + 1].imshow(maps[k], cmap="viridis")
for ax in axes.flat:
    ax.set_xticks([])
    ax.set_yticks([])
plt.tight_layout()
plt.show()

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
# The task: given the current value of a noisy sine wave, predict the next one.

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
x_small = np.arange(16.0).reshape(4, 4)
w_small = np.array([[1.0, 0.0], [0.0, -1.0]])
check_close("conv2d_naive on a 4x4 ramp", conv2d_naive(x_small, w_small), np.full((3, 3), -5.0),
            hint="x[i, j] - x[i+1, j+1] is -5 everywhere on this ramp")
rng = np.random.default_rng(0)
x_rand, w_rand = rng.standard_normal((7, 6)), rng.standard_normal((3, 3))
check_close("conv2d_naive on random data", conv2d_naive(x_rand, w_rand),
            F.conv2d(x_rand[None, None], w_rand[None, None]).data[0, 0],
            hint="slide the window without flipping the filter")
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
cases = [((6, 3, 1, 0), 4), ((8, 3, 1, 1), 8), ((28, 5, 1, 2), 28), ((7, 3, 2, 0), 3),
         ((8, 2, 2, 0), 4), ((5, 3, 2, 1), 3)]
for args, expected in cases:
    got = conv_output_size(*args)
    check_true(got == expected, f"conv_output_size(h={args[0]}, k={args[1]}, stride={args[2]}, "
               f"padding={args[3]}) should be {expected}, got {got}")
ok("conv_output_size follows floor((H + 2P - K) / S) + 1")

# %% [markdown]
# ### Exercise 3 — one RNN step
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
shapes = [(2, 3), (2, 4), (4, 3), (4, 4), (4,)]
args = [rng.standard_normal(s) * 0.5 for s in shapes]
out = rnn_step(*[Variable(a) for a in args])
check_true(out.shape == (2, 4), f"rnn_step should give shape (2, 4), got {out.shape}")
xs, hs, wx, wh, bs = args
check_close("rnn_step", out, np.tanh(xs @ wx.T + hs @ wh.T + bs))
check_gradient("rnn_step", rnn_step, *args)
ok("rnn_step is right, and autograd differentiates it w.r.t. all five inputs")

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
#
# This is the end of the course. From here, read the source of `minitorch/ops/conv.py`
# and `minitorch/nn/recurrent.py` — after these notebooks, every line should make sense.
