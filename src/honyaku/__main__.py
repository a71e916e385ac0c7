from honyaku.cli import main

main()
