# minitorch — the two commands of the README are `make demo` and `make test`.
# Both create .venv and install what they need on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export NO_MKDOCS_2_WARNING := 1

# The whole suite needs JupyterLab (the stepper widget is tested in it) and nbgrader (the
# course's grading test): the lab and course extras. CI (or CROSSCHECK=1) also installs
# PyTorch 2.13.0 (a CPU build from local disk) so the cross-checks run; a student's laptop
# skips them instead of downloading gigabytes.
EXTRAS := viz,dev,docs,lab,course,milestones
ifeq ($(CI),true)
  EXTRAS := viz,dev,docs,lab,course,milestones,crosscheck
endif
ifeq ($(CROSSCHECK),1)
  EXTRAS := viz,dev,docs,lab,course,milestones,crosscheck
endif

.PHONY: help venv graphviz test lint typecheck pytest demo bench clean docs docs-serve doctest
.PHONY: student notebooks lab fuzz browser lab-student course milestones

help:
	@echo "make demo   - train on handwritten digits and draw what autograd did"
	@echo "make test   - lint, type-check and run the whole test suite"
	@echo "make bench  - side-by-side benchmarks (minitorch, NumPy, DeZero, PyTorch)"
	@echo "make lab    - JupyterLab on the course notebooks (make student: copies without solutions)"
	@echo "make lab-student - JupyterLab on the student copies (build/student)"
	@echo "make course - nbgrader's course directory (build/course); see docs/for-teachers.md"
	@echo "make milestones - seventy years of neural networks, offline (build/milestones)"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e ".[$(EXTRAS)]"
	@echo "$(EXTRAS)" > $(STAMP)

venv: $(STAMP)
	@if [ "$$(cat $(STAMP))" != "$(EXTRAS)" ]; then \
	  $(PY) -m pip install -q -e ".[$(EXTRAS)]" && echo "$(EXTRAS)" > $(STAMP); fi

# Optional: the system Graphviz `dot` (apt-get, as root). Nothing needs it any more: the
# viz extra installs graphviz-pure, which viz uses when `dot` is missing; `dot` adds PDF.
graphviz:
	@./scripts/ensure_graphviz.sh

# For the headless-browser test of viz's stepper: Debian's chromium and the playwright
# package, installed only when running as root (never `playwright install`: no downloads).
# Otherwise that test skips and says why.
browser: venv
	@if [ "$$(id -u)" = "0" ]; then \
	  command -v chromium >/dev/null 2>&1 || { apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	    echo "WARNING: apt-get could not install chromium; the browser test will skip" >&2; \
	  $(PY) -c "import playwright" 2>/dev/null || $(PY) -m pip install -q playwright || \
	    echo "WARNING: pip could not install playwright; the browser test will skip" >&2; \
	fi

lint: venv
	$(VENV)/bin/ruff check minitorch viz tests benchmarks examples docs/hooks conftest.py \
	  scripts/check_site_links.py

typecheck: venv
	$(VENV)/bin/mypy minitorch viz examples

# The stored notebook outputs come from one pinned renderer, graphviz-pure, so they are
# the same on every machine; nbval and the notebook runner use it too.
NOTEBOOK_RENDERER := MINITORCH_VIZ_RENDERER=graphviz-pure

pytest: venv browser
	@$(PY) -c "import importlib.util as u, sys; sys.exit(u.find_spec('torch') is None)" || \
	  echo "NOTE: PyTorch is not installed, so the PyTorch cross-checks are skipped" \
	    "(CROSSCHECK=1 make test installs torch==2.13.0, a CPU build, and runs them)"
	$(VENV)/bin/pytest -n 2 --dist loadfile tests
	$(NOTEBOOK_RENDERER) $(VENV)/bin/pytest -n 2 --dist loadfile --nbval --nbval-current-env --nbval-sanitize-with notebooks/nbval_sanitize.cfg notebooks

test: lint typecheck docs pytest doctest

# The documentation site (mkdocs.yml, docs/): warnings fail the build, and so does any
# internal link, #anchor or image of site/ that does not work when it is opened from disk.
docs: venv
	$(VENV)/bin/mkdocs build --strict --quiet
	$(PY) scripts/check_site_links.py site

# The same site over http (http://127.0.0.1:8000), rebuilt on every change.
docs-serve: venv
	$(VENV)/bin/mkdocs serve

# Every docstring's Example: section runs as a doctest.
doctest: venv
	$(VENV)/bin/pytest -q --doctest-modules minitorch viz examples --ignore-glob='*/__main__.py'

# The long fuzzing run: many more random expression trees than `make test` tries.
fuzz: venv
	MINITORCH_FUZZ=2000 $(VENV)/bin/pytest -q tests/reliability/test_fuzz.py

demo: venv
	$(PY) -m examples.demo

# The ladder of historical milestones (docs/milestones.md), all data offline; it exits
# non-zero if any milestone misses its threshold. MILESTONES_ARGS=--quick for the short run.
MILESTONES_ARGS ?=
milestones: venv
	$(PY) -m examples.milestones run --json build/milestones/results.json $(MILESTONES_ARGS)

# The peers are pinned: DeZero 0.0.13 (the book's release) and torch 2.13.0, a CPU build
# from local disk (any other torch version downloads gigabytes). BENCH_ARGS=--quick for a
# short run; --update-docs also refreshes docs/performance.md. BASELINE=REV (e.g.
# BASELINE=main) also benches minitorch at commit REV as a peer in the same rounds.
BENCH_ARGS ?=
bench: venv
	$(PY) -m pip install -q "dezero==0.0.13" "torch==2.13.0"
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $(PY) -m benchmarks.run \
		$(if $(BASELINE),--baseline $(BASELINE)) $(BENCH_ARGS)

# The course: student copies (solutions stripped), re-executed notebooks, JupyterLab.
student: venv
	$(PY) scripts/make_student.py --out build/student

notebooks: venv
	$(NOTEBOOK_RENDERER) $(PY) scripts/run_notebooks.py

lab: venv
	@$(PY) -c "import jupyterlab" 2>/dev/null || $(PY) -m pip install -q "jupyterlab>=4"
	$(VENV)/bin/jupyter lab notebooks $$([ "$$(id -u)" = 0 ] && echo --allow-root)

# The student copies, opened in JupyterLab (make student writes them first).
lab-student: student graphviz
	@$(PY) -c "import jupyterlab" 2>/dev/null || $(PY) -m pip install -q "jupyterlab>=4"
	$(VENV)/bin/jupyter lab build/student $$([ "$$(id -u)" = 0 ] && echo --allow-root)

# nbgrader (the `course` extra) and its course directory build/course/source/<NN_name>/;
# nbgrader_config.py (course id, root, exchange in build/) is read from this directory.
course: venv
	@$(PY) -c "import nbgrader" 2>/dev/null || $(PY) -m pip install -q -e ".[$(EXTRAS),course]"
	$(PY) scripts/make_course.py
	@echo "next, from this directory: source .venv/bin/activate && nbgrader generate_assignment 01_variables_and_numerical_diff"

clean:
	rm -rf build site .pytest_cache .mypy_cache .ruff_cache
