package io.lockkit.redis.launcher;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where a Redis server answers and how to log in: host, port, optional user and password, database.
 * Parsed from {@code redis://[[user]:password@]host[:port][/database]}; TLS ({@code rediss://}) is
 * out of reach of the launcher's plain-socket client and is rejected.
 */
public record Endpoint(
        String host,
        int port,
        @Nullable String user,
        @Nullable String password,
        int database) {

    /** The port of a URI that names none. */
    public static final int DEFAULT_PORT = 6379;

    /** Checks the fields. */
    public Endpoint {
        Objects.requireNonNull(host, "host");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be in 1..65535: " + port);
        }
        if (database < 0) {
            throw new IllegalArgumentException("database must not be negative: " + database);
        }
    }

    /** A loopback endpoint without credentials, as used for servers the launcher starts. */
    public static Endpoint loopback(int port) {
        return new Endpoint("127.0.0.1", port, null, null, 0);
    }

    /**
     * Parses a {@code redis://} URI.
     *
     * @throws IllegalArgumentException naming {@code argument} when the text is not a usable URI
     */
    public static Endpoint parse(String text, String argument) {
        URI uri;
        try {
            uri = new URI(text.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(argument + " is not a URI: " + e.getMessage(), e);
        }
        if ("rediss".equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException(argument
                    + ": rediss:// (TLS) is not supported by lockkit's Redis launcher; give a plain redis:// URI");
        }
        if (!"redis".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException(argument + " must look like redis://host:port, got " + redact(text));
        }
        int port = uri.getPort() == -1 ? DEFAULT_PORT : uri.getPort();
        String user = null;
        String password = null;
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null && !userInfo.isEmpty()) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                password = decode(userInfo);
            } else {
                user = colon == 0 ? null : decode(userInfo.substring(0, colon));
                password = decode(userInfo.substring(colon + 1));
            }
        }
        int database = 0;
        String path = uri.getPath();
        if (path != null && path.length() > 1) {
            try {
                database = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        argument + ": the path must be a database number, got " + redact(text), e);
            }
        }
        String host = uri.getHost();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new Endpoint(host, port, user, password, database);
    }

    /** The URI of this endpoint with the password replaced by {@code ***}. */
    public String redactedUri() {
        StringBuilder sb = new StringBuilder("redis://");
        if (password != null) {
            sb.append(user == null ? "" : user).append(":***@");
        }
        sb.append(host.contains(":") ? "[" + host + "]" : host).append(':').append(port);
        if (database != 0) {
            sb.append('/').append(database);
        }
        return sb.toString();
    }

    /** Hides a password in user text before it goes into a message. */
    public static String redact(String text) {
        return text.replaceAll("//[^/@]*@", "//***@");
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return redactedUri();
    }
}
