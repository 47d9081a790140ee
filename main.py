"""Start the Manipulator Designer window: ``python main.py [PROJECT]``."""

import sys

if __name__ == "__main__":
    try:
        from designer.gui.app import main
    except ImportError as exc:  # the window is not built yet
        print(f"The desktop window is not available yet ({exc}); use `python -m designer --help`.")
        sys.exit(0)
    sys.exit(main(sys.argv[1:]))
