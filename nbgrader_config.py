"""nbgrader's configuration for the minitorch course, for one teacher on one machine.

nbgrader reads this file from the directory it is started in, so run its commands from
the repository root (``make course`` prepares the course directory first)::

    make course                                   # build/course/source/<NN_name>/
    .venv/bin/nbgrader generate_assignment 01_variables_and_numerical_diff
    .venv/bin/nbgrader release_assignment 01_variables_and_numerical_diff
    .venv/bin/nbgrader autograde 01_variables_and_numerical_diff
    .venv/bin/nbgrader generate_feedback 01_variables_and_numerical_diff

Everything nbgrader writes stays inside the repository's ``build/`` folder: the course
directory (source/, release/, submitted/, autograded/, feedback/, gradebook.db) is
``build/course`` and the exchange, where ``release_assignment`` puts the released
notebooks for students to fetch, is ``build/exchange`` (nbgrader's default,
``/usr/local/share/nbgrader/exchange``, needs root and is shared by every course).
"""

from pathlib import Path

BUILD = Path(__file__).resolve().parent / "build"

c = get_config()  # type: ignore[name-defined]  # noqa: F821 (nbgrader provides it)

c.CourseDirectory.course_id = "minitorch"
c.CourseDirectory.root = str(BUILD / "course")
c.Exchange.root = str(BUILD / "exchange")
