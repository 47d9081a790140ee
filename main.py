"""Start the Manipulator Designer window: ``python main.py [PROJECT]``."""

import sys

from designer.launch import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
