# minitorch — the two commands of the README are `make demo` and `make test`.
# Both create .venv and install what they need on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export NO_MKDOCS_2_WARNING := 1
# Python's bytecode caches stay on. The venv is installed without bytecode (pip
# --no-compile, scripts/venv_extras.sh): Python compiles and caches what it imports. Where
# the environment sets PYTHONDONTWRITEBYTECODE (some sandboxes do) nothing is cached, and
# each of the hundred-odd Python processes of make test (pytest workers, notebook kernels,
# nbgrader's commands) compiles numpy, matplotlib and Jupyter from source again: 11 s of
# the 18 s a pytest process took here to collect the suite, 2 of a kernel's 4 s of imports.
unexport PYTHONDONTWRITEBYTECODE

# Each command installs the extras of pyproject.toml it needs the first time it runs, so
# `make demo` stays small (NumPy, the renderer, matplotlib, tqdm, scikit-learn: ~320 MB)
# and `make test` adds the rest. The whole suite needs JupyterLab (the stepper widget is
# tested in it), nbgrader (the course's grading test), mkdocs and the linters. CI (or
# CROSSCHECK=1) also installs PyTorch 2.13.0 (a CPU build from local disk) so the
# cross-checks run; a student's laptop skips them instead of downloading gigabytes.
DEMO_EXTRAS := demo
LAB_EXTRAS := lab
DOCS_EXTRAS := docs
COURSE_EXTRAS := lab,course
BENCH_EXTRAS := viz,bench
MILESTONES_EXTRAS := demo,milestones
TEST_EXTRAS := demo,dev,docs,lab,course,milestones,text
ifeq ($(CI),true)
  TEST_EXTRAS := demo,dev,docs,lab,course,milestones,text,crosscheck
endif
ifeq ($(CROSSCHECK),1)
  TEST_EXTRAS := demo,dev,docs,lab,course,milestones,text,crosscheck
endif
# $(call need,EXTRAS): the first recipe line of a target that needs EXTRAS in .venv.
need = ./scripts/venv_extras.sh $(VENV) $(1)

# The phases of `make test`, run in this order; their times are printed at the end.
TEST_PHASES := lint typecheck docs pytest nbval doctest

.PHONY: help venv graphviz test lint typecheck pytest nbval demo bench clean docs docs-serve
.PHONY: doctest student notebooks lab fuzz browser lab-student course milestones

help:
	@echo "make demo        - train on handwritten digits and draw what autograd did"
	@echo "make test        - lint, type-check, build the docs, run the tests and notebooks"
	@echo "                   (phases: make $(TEST_PHASES))"
	@echo "make bench       - side-by-side benchmarks (minitorch, NumPy, DeZero, PyTorch)"
	@echo "make fuzz        - the long fuzzing run of random expression trees"
	@echo "make docs        - build the documentation site into site/ and check its links"
	@echo "make docs-serve  - serve the documentation at http://127.0.0.1:8000 while you edit"
	@echo "make lab         - JupyterLab on the course notebooks (with solutions)"
	@echo "make student     - student copies without solutions, in build/student"
	@echo "make lab-student - JupyterLab on the student copies (build/student)"
	@echo "make notebooks   - rebuild and re-execute the notebooks from notebooks/src"
	@echo "make course      - nbgrader's course directory (build/course); see docs/for-teachers.md"
	@echo "make milestones  - seventy years of neural networks, offline (build/milestones)"
	@echo "make graphviz    - optional: the system Graphviz (apt-get, as root) for PDF output"
	@echo "make venv        - .venv with everything make test needs"
	@echo "make clean       - remove build/, site/ and the tools' caches"
	@echo "make help        - this list"

# A fresh .venv with a pip and a setuptools new enough for pyproject.toml (the SPDX
# license needs setuptools>=77; Python's venv brings 65.5).
$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip "setuptools>=77"

venv: | $(PY)
	@$(call need,$(TEST_EXTRAS))

# Optional: the system Graphviz `dot` (apt-get, as root). Nothing needs it any more: the
# viz extra installs graphviz-pure, which viz uses when `dot` is missing; `dot` adds PDF.
graphviz:
	@./scripts/ensure_graphviz.sh

# The browser tests (viz's stepper, the docs site) drive Debian's chromium with the
# playwright package (the dev extra). pip has no Chromium, and `playwright install` would
# download one from a CDN, so as root this installs Debian's with apt-get the first time
# (about a minute, once; BROWSER=0 skips it). Otherwise those tests skip and say why.
browser: | $(PY)
	@$(call need,$(TEST_EXTRAS))
	@if [ "$$(id -u)" = "0" ] && [ "$(BROWSER)" != 0 ] && ! command -v chromium >/dev/null 2>&1; then \
	  echo "apt-get: installing Debian's chromium for the browser tests (once, about a minute; BROWSER=0 skips)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
	    >/dev/null 2>&1 || \
	    echo "WARNING: apt-get could not install chromium; the browser tests will skip" >&2; \
	fi

lint: | $(PY)
	@$(call need,$(TEST_EXTRAS))
	$(VENV)/bin/ruff check minitorch viz tests benchmarks examples docs/hooks conftest.py \
	  scripts/check_site_links.py

typecheck: | $(PY)
	@$(call need,$(TEST_EXTRAS))
	$(VENV)/bin/mypy minitorch viz examples

# The stored notebook outputs come from one pinned renderer, graphviz-pure, so they are
# the same on every machine; nbval and the notebook runner use it too.
NOTEBOOK_RENDERER := MINITORCH_VIZ_RENDERER=graphviz-pure

# Two workers; --dist loadscope keeps each test file (and each test class) on one worker,
# so a module's fixtures run once, and the two classes of the graded-alone test (each
# notebook played in one kernel) run side by side; the files holding a `slow` test go
# first (tests/conftest.py), so no long file starts last. One BLAS thread per worker: two
# workers with two OpenBLAS threads each contend for two cores (the matrix products of
# two such processes side by side took 13 s instead of 8.7 s here).
ONE_BLAS_THREAD := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
pytest: browser
	@$(PY) -c "import importlib.util as u, sys; sys.exit(u.find_spec('torch') is None)" || \
	  echo "NOTE: PyTorch is not installed, so the PyTorch cross-checks are skipped" \
	    "(CROSSCHECK=1 make test installs torch==2.13.0, a CPU build, and runs them)"
	$(ONE_BLAS_THREAD) $(VENV)/bin/pytest -n 2 --dist loadscope --no-loadscope-reorder tests

# Every notebook runs top to bottom and its outputs are compared with the stored ones
# (two workers, one BLAS thread each, as for make pytest; the stored outputs are the same).
nbval: | $(PY)
	@$(call need,$(TEST_EXTRAS))
	$(NOTEBOOK_RENDERER) $(ONE_BLAS_THREAD) $(VENV)/bin/pytest -n 2 --dist loadfile --nbval --nbval-current-env --nbval-sanitize-with notebooks/nbval_sanitize.cfg notebooks

# The phases one after another (stopping at the first that fails), then how long each took.
test: | $(PY)
	@$(call need,$(TEST_EXTRAS))
	@times=""; status=0; \
	for phase in $(TEST_PHASES); do \
	  start=$$(date +%s); \
	  $(MAKE) --no-print-directory $$phase || status=$$?; \
	  times="$$times  $$(printf '%-10s %4d s' $$phase $$(( $$(date +%s) - start )))\n"; \
	  [ $$status = 0 ] || break; \
	done; \
	printf "\nmake test, time per phase:\n$$times"; \
	[ $$status = 0 ] && echo "make test: all phases passed" || echo "make test: $$phase failed"; \
	exit $$status

# The documentation site (mkdocs.yml, docs/): warnings fail the build, and so does any
# internal link, #anchor or image of site/ that does not work when it is opened from disk.
docs: | $(PY)
	@$(call need,$(DOCS_EXTRAS))
	$(VENV)/bin/mkdocs build --strict --quiet
	$(PY) scripts/check_site_links.py site

# The same site over http (http://127.0.0.1:8000), rebuilt on every change.
docs-serve: | $(PY)
	@$(call need,$(DOCS_EXTRAS))
	$(VENV)/bin/mkdocs serve

# Every docstring's Example: section runs as a doctest.
doctest: | $(PY)
	@$(call need,$(TEST_EXTRAS))
	$(VENV)/bin/pytest -q --doctest-modules minitorch viz examples --ignore-glob='*/__main__.py'

# The long fuzzing run: many more random expression trees than `make test` tries.
fuzz: | $(PY)
	@$(call need,$(TEST_EXTRAS))
	MINITORCH_FUZZ=2000 $(VENV)/bin/pytest -q tests/reliability/test_fuzz.py

demo: | $(PY)
	@$(call need,$(DEMO_EXTRAS))
	$(PY) -m examples.demo

# The ladder of historical milestones (docs/milestones.md), all data offline; it exits
# non-zero if any milestone misses its threshold. MILESTONES_ARGS=--quick for the short run.
MILESTONES_ARGS ?=
milestones: | $(PY)
	@$(call need,$(MILESTONES_EXTRAS))
	$(ONE_BLAS_THREAD) $(PY) -m examples.milestones run --json build/milestones/results.json $(MILESTONES_ARGS)

# The peers are pinned (the bench extra): DeZero 0.0.13 (the book's release) and torch
# 2.13.0, a CPU build from local disk (any other torch version downloads gigabytes).
# BENCH_ARGS=--quick for a short run; --update-docs also refreshes docs/performance.md.
# BASELINE=REV (e.g. BASELINE=main) also benches minitorch at commit REV as a peer in the
# same rounds.
BENCH_ARGS ?=
bench: | $(PY)
	@$(call need,$(BENCH_EXTRAS))
	$(ONE_BLAS_THREAD) $(PY) -m benchmarks.run \
		$(if $(BASELINE),--baseline $(BASELINE)) $(BENCH_ARGS)

# The course: student copies (solutions stripped), re-executed notebooks, JupyterLab.
student: | $(PY)
	@$(call need,$(LAB_EXTRAS))
	$(PY) scripts/make_student.py --out build/student

notebooks: | $(PY)
	@$(call need,$(LAB_EXTRAS))
	$(NOTEBOOK_RENDERER) $(PY) scripts/run_notebooks.py

# JupyterLab without nbgrader's extensions (the course extra installs them): its
# formgrader wants the course directory (build/course) inside the folder JupyterLab
# serves, and logs an error otherwise, and its Create Assignment and Validate tools are
# for teachers. scripts/jupyter/ (first on JUPYTER_CONFIG_PATH) switches both off;
# teachers run nbgrader's commands instead (docs/for-teachers.md).
JUPYTER_LAB := JUPYTER_CONFIG_PATH=$(CURDIR)/scripts/jupyter$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH} \
  $(VENV)/bin/jupyter lab
ALLOW_ROOT := $$([ "$$(id -u)" = 0 ] && echo --allow-root)

lab: | $(PY)
	@$(call need,$(LAB_EXTRAS))
	$(JUPYTER_LAB) notebooks $(ALLOW_ROOT)

# The student copies, opened in JupyterLab (make student writes them first).
lab-student: student
	$(JUPYTER_LAB) build/student $(ALLOW_ROOT)

# nbgrader (the `course` extra) and its course directory build/course/source/<NN_name>/;
# nbgrader_config.py (course id, root, exchange in build/) is read from this directory.
course: | $(PY)
	@$(call need,$(COURSE_EXTRAS))
	$(PY) scripts/make_course.py
	@echo "next, from this directory: source .venv/bin/activate && nbgrader generate_assignment 01_variables_and_numerical_diff"

clean:
	rm -rf build site .pytest_cache .mypy_cache .ruff_cache
