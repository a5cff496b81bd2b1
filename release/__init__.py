"""What a release is and how a running table proves it runs one: the signed manifest of its
files and the seeded digest a floor asks for (docs/floor.md, "Verifying a table")."""
