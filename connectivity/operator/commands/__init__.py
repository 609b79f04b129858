"""The operators' command groups, one module each. A command is a thin shell: it parses its
options, calls one use case (through `Database.run`, unless the use case documents why it runs
its own transactions or session) and prints the outcome."""
