package io.lockkit.cli;

import io.lockkit.DistributedLockFactory;
import io.lockkit.jedis.JedisLockProvider;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.SslOptions;

/**
 * The Redis a command talks to: a {@link JedisLockProvider} built from the global options (URI,
 * credentials, TLS trust, key prefix, timeout) and a factory over it that the command uses for
 * inspection only. Closing it closes both; nothing is held, so nothing is released.
 *
 * <p>Design notes: credentials given apart from the URI ({@code --user}, {@code --password},
 * {@code $LOCKKIT_REDIS_PASSWORD}) are put into the URI's user info, which is how the provider's
 * builder takes them (it decodes the URI's escapes, so any character is allowed). Only the redacted
 * URI is ever printed. A PEM CA file becomes an in-memory PKCS12 trust store for Jedis.
 */
final class Target implements AutoCloseable {

    /** How the CLI's connections show in {@code CLIENT LIST}. */
    static final String CLIENT_NAME = "lockkit-cli";

    private final DistributedLockFactory factory;
    private final String description;

    private Target(DistributedLockFactory factory, String description) {
        this.factory = factory;
        this.description = description;
    }

    DistributedLockFactory factory() {
        return factory;
    }

    /** The Redis in words, without its password, for messages. */
    String description() {
        return description;
    }

    static Target open(LockkitCli options) {
        URI uri = resolveUri(options);
        JedisLockProvider.Builder builder = JedisLockProvider.builder();
        try {
            builder.uri(uri.toString())
                    .keyPrefix(options.keyPrefix)
                    .timeout(options.timeout)
                    .connectTimeout(options.timeout)
                    .clientName(CLIENT_NAME);
            if (options.caCert != null) {
                builder.sslOptions(trusting(options.caCert));
            }
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        JedisLockProvider provider;
        try {
            provider = builder.build();
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        DistributedLockFactory factory = DistributedLockFactory.builder(provider)
                .subscriptionLinger(java.time.Duration.ZERO)
                .build();
        return new Target(factory, redact(uri) + " (key prefix " + options.keyPrefix + ")");
    }

    /** The URI from {@code --uri}, the environment or the default, with {@code --user}/{@code --password} put in. */
    static URI resolveUri(LockkitCli options) {
        LockkitCli.Environment env = options.environment();
        String text = options.uri != null ? options.uri : env.variable(LockkitCli.URI_VARIABLE);
        if (text == null || text.isBlank()) {
            text = LockkitCli.DEFAULT_URI;
        }
        URI uri;
        try {
            uri = new URI(text.trim());
        } catch (URISyntaxException e) {
            throw new UsageException("--uri is not a URI: " + e.getReason() + " at index "
                    + e.getIndex()); // not the text: it may hold a password
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if ((!scheme.equals("redis") && !scheme.equals("rediss")) || uri.getHost() == null) {
            throw new UsageException(
                    "--uri must look like redis://host:port or rediss://host:port, was " + redact(uri));
        }
        String uriUser = null;
        String uriPassword = null;
        if (uri.getUserInfo() != null) {
            String info = uri.getUserInfo();
            int colon = info.indexOf(':');
            uriUser = colon < 0 ? info : info.substring(0, colon);
            uriPassword = colon < 0 ? null : info.substring(colon + 1);
        }
        String password =
                options.password != null ? new String(options.password) : env.variable(LockkitCli.PASSWORD_VARIABLE);
        if (password == null) {
            password = uriPassword;
        }
        String user = options.user != null ? options.user : uriUser;
        if (user != null && user.isEmpty()) {
            user = null;
        }
        if (password == null) {
            if (user != null) {
                throw new UsageException(
                        "user '" + user + "' needs a password: --password (asks when given no value), $"
                                + LockkitCli.PASSWORD_VARIABLE + " or the URI's user:password@");
            }
            return withUserInfo(uri, null);
        }
        // The multi-argument URI constructor quotes every character a user info cannot hold, '%' included.
        return withUserInfo(uri, (user != null ? user : "") + ":" + password);
    }

    private static URI withUserInfo(URI uri, @Nullable String userInfo) {
        try {
            return new URI(
                    uri.getScheme().toLowerCase(Locale.ROOT),
                    userInfo,
                    uri.getHost(),
                    uri.getPort(),
                    uri.getPath(),
                    null,
                    null);
        } catch (URISyntaxException e) {
            throw new UsageException("--uri cannot take these credentials: " + e.getReason());
        }
    }

    /** The URI without its password. */
    static String redact(URI uri) {
        if (uri.getRawUserInfo() == null) {
            return uri.toString();
        }
        String info = uri.getRawUserInfo();
        int colon = info.indexOf(':');
        String shown = colon < 0 ? info : info.substring(0, colon) + ":***";
        return uri.toString().replace(info + "@", shown + "@");
    }

    /** TLS options trusting the certificates of a PEM file (and only those). */
    static SslOptions trusting(Path pemFile) {
        byte[] store;
        char[] password = "lockkit-cli".toCharArray();
        try (InputStream in = Files.newInputStream(pemFile)) {
            Collection<? extends Certificate> certificates =
                    CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certificates.isEmpty()) {
                throw new UsageException("--cacert " + pemFile + " holds no certificate");
            }
            KeyStore keyStore = KeyStore.getInstance("PKCS12");
            keyStore.load(null, password);
            int i = 0;
            for (Certificate c : certificates) {
                keyStore.setCertificateEntry("ca-" + i++, c);
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            keyStore.store(bytes, password);
            store = bytes.toByteArray();
        } catch (IOException | GeneralSecurityException e) {
            throw new UsageException("--cacert " + pemFile + " cannot be read as PEM certificates: " + e.getMessage());
        }
        return SslOptions.builder()
                .trustStoreType("PKCS12")
                .truststore(() -> new ByteArrayInputStream(store), password)
                .build();
    }

    @Override
    public void close() {
        factory.close();
    }

    /** A bad option value found while connecting: reported like picocli's usage errors (exit 2). */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(@Nullable String message) {
            super(message);
        }
    }
}
