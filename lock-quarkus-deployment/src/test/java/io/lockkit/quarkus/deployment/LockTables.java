package io.lockkit.quarkus.deployment;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** Looks into a datasource for lockkit's lock table, by the tests; deployed with them. */
final class LockTables {

    private LockTables() {}

    /** The rows of {@code lockkit_locks}. */
    static long rows(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT count(*) FROM lockkit_locks")) {
            r.next();
            return r.getLong(1);
        }
    }

    /** The names of the datasource's tables, as the database spells them. */
    static List<String> tables(DataSource dataSource) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                ResultSet r = c.getMetaData().getTables(null, null, "%", new String[] {"TABLE"})) {
            while (r.next()) {
                names.add(r.getString("TABLE_NAME"));
            }
        }
        return names;
    }
}
