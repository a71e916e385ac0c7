"""Run the fake model server: ``python -m honyaku.testing --port 8765``."""

from honyaku.testing.fake_llm import main

main()
