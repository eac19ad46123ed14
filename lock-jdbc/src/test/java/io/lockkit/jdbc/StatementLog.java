package io.lockkit.jdbc;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A DataSource for tests that hands out plain driver connections and records the SQL of every
 * statement they run (a prepared statement when it is executed, a plain statement's text when
 * it is), so a test counts the statements of its own provider only.
 */
final class StatementLog {

    private final String url;
    private final List<String> executed = new CopyOnWriteArrayList<>();

    StatementLog(String url) {
        this.url = url;
    }

    /** The SQL of every statement run so far, in order. */
    List<String> executed() {
        return List.copyOf(executed);
    }

    void clear() {
        executed.clear();
    }

    DataSource dataSource() {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getConnection" -> connection(DriverManager.getConnection(url));
                    case "getLogWriter" -> (PrintWriter) null;
                    case "getLoginTimeout" -> 0;
                    case "getParentLogger" -> Logger.getGlobal();
                    case "isWrapperFor" -> false;
                    case "toString" -> "StatementLog DataSource";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private Connection connection(Connection real) {
        return proxy(Connection.class, real, (proxy, method, args) -> {
            Object result = invoke(real, method, args);
            if (method.getName().equals("prepareStatement") && args != null && args[0] instanceof String sql) {
                return proxy(PreparedStatement.class, result, (p, m, a) -> {
                    if (m.getName().startsWith("execute")) {
                        executed.add(sql);
                    }
                    return invoke(result, m, a);
                });
            }
            if (method.getName().equals("createStatement")) {
                return proxy(Statement.class, result, (p, m, a) -> {
                    if (m.getName().startsWith("execute") && a != null && a.length > 0 && a[0] instanceof String sql) {
                        executed.add(sql);
                    }
                    return invoke(result, m, a);
                });
            }
            return result;
        });
    }

    private static <T> T proxy(Class<T> type, Object target, InvocationHandler handler) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
