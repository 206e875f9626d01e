"""Values of the tuning's configuration, table and result, each against a computation written here."""
