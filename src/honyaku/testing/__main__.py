"""Run the fake model server: ``python -m honyaku.testing --port 8765``."""

from honyaku.testing.fake_llm import main

if __name__ == "__main__":  # imported (by a test walking the package), it runs nothing
    main()
