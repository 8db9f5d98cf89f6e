"""Only what pyproject.toml cannot say without a warning: the optional C extension, and quiet editable installs.

* The compiled Avro row encoder (hudi_log/format/content/columnar_encode.py falls back to pyarrow without
  it), Avro block decoder (hudi_log/format/content/avro_columnar.py falls back to polars without
  it) and framing scan (hudi_log/format/fast_scan.py) are optional, so an install without a C compiler still succeeds. setuptools calls
  ``[tool.setuptools.ext-modules]`` in pyproject.toml experimental and warns on every install; declared
  here it is the long-standing, stable way.
* ``pip install -e .`` (tools/setup.sh) with our layout (``generated/`` installed as ``hudi_log_generated``)
  makes setuptools use a meta-path finder and print an information-only "Editable installation" notice
  (``InformationOnly``, not a warning about this project); we know the layout, so that one notice is
  filtered by its message. Any other warning still shows.
"""

import warnings

from setuptools import Extension, setup
from setuptools.warnings import InformationOnly

warnings.filterwarnings("ignore", message=r"Editable installation\.", category=InformationOnly)

setup(ext_modules=[
    Extension("hudi_log.format.content._avro_rows", sources=["hudi_log/format/content/_avro_rows.c"], optional=True),
    # the compiled Avro block decoder (avro_columnar.py falls back to polars without it)
    Extension("hudi_log.format.content._avro_cols", sources=["hudi_log/format/content/_avro_cols.c"], optional=True),
    # the compiled delete-payload decoder (deletes_fast.py falls back to its Python twin without it)
    Extension("hudi_log.format.content._deletes", sources=["hudi_log/format/content/_deletes.c"], optional=True),
    # the compiled framing scan (hudi_log/format/fast_scan.py falls back to its Python twin without it)
    Extension("hudi_log.format._framing_scan", sources=["hudi_log/format/_framing_scan.c"], optional=True),
])
