"""What the tests share beyond their fixtures, and the benchmarks borrow.

postgres.py   a throwaway PostgreSQL cluster (pytest-postgresql's executor), handing out
              migrated databases
"""
