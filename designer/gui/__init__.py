"""gui"""

from ._refcounts import pin_singletons

pin_singletons()  # PySide6 6.12.0 drops references to True/None on Python 3.11 (see _refcounts.py)
