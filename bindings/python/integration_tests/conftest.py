"""The framework tests (one file a framework, run by scripts/test-parts/41-python-frameworks.sh,
each in a virtualenv that has that framework only): ``scenario`` is importable from each."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
