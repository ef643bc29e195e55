public import SQLiteDB

/// The schema of `Migrations/*.sql`, embedded in the binary by the EmbedMigrations plugin.
public enum Schema {
    public static var migrations: [Migrator.Migration] {
        EmbeddedMigrations.all.map { Migrator.Migration(name: $0.name, sql: $0.sql) }
    }

    public static var migrator: Migrator { Migrator(migrations: migrations) }
}
