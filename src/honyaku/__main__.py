from honyaku.cli import main

if __name__ == "__main__":  # imported (by a test walking the package), it runs nothing
    main()
