package io.lockkit.jedis.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed server certificate for {@code 127.0.0.1} (PEM certificate and key, as
 * {@code redis-server} wants them) and a PKCS12 trust store holding it (as Java wants it), made
 * with the {@code openssl} command in a directory of the caller's. The JDK's {@code keytool} cannot
 * export a private key as PEM, hence openssl.
 *
 * @param certificate the PEM certificate, also usable as the CA file (it signs itself)
 * @param key the PEM private key
 * @param trustStore a PKCS12 trust store with the certificate
 * @param trustStorePassword its password
 */
public record TestCertificates(Path certificate, Path key, Path trustStore, char[] trustStorePassword) {

    /**
     * Makes the files in {@code dir}, or returns empty (with the reason on stderr) when there is
     * no working {@code openssl} on the PATH.
     */
    public static Optional<TestCertificates> create(Path dir)
            throws IOException, InterruptedException, GeneralSecurityException {
        Path cert = dir.resolve("redis.crt");
        Path key = dir.resolve("redis.key");
        Path log = dir.resolve("openssl.log");
        Process openssl;
        try {
            openssl = new ProcessBuilder(List.of(
                            "openssl",
                            "req",
                            "-x509",
                            "-newkey",
                            "ec",
                            "-pkeyopt",
                            "ec_paramgen_curve:prime256v1",
                            "-nodes",
                            "-days",
                            "2",
                            "-subj",
                            "/CN=lockkit-test",
                            "-addext",
                            "subjectAltName=IP:127.0.0.1",
                            "-keyout",
                            key.toString(),
                            "-out",
                            cert.toString()))
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
        } catch (IOException e) {
            System.err.println("no openssl on the PATH: " + e.getMessage());
            return Optional.empty();
        }
        if (!openssl.waitFor(30, TimeUnit.SECONDS) || openssl.exitValue() != 0 || !Files.exists(cert)) {
            openssl.destroyForcibly();
            System.err.println(
                    "openssl could not make a certificate: " + Files.readString(log, StandardCharsets.UTF_8));
            return Optional.empty();
        }
        char[] password = "lockkit-test".toCharArray();
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(cert)) {
            trust.setCertificateEntry(
                    "redis", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        Path store = dir.resolve("truststore.p12");
        try (OutputStream out = Files.newOutputStream(store)) {
            trust.store(out, password);
        }
        return Optional.of(new TestCertificates(cert, key, store, password));
    }

    /**
     * A self-signed client certificate in a PKCS12 key store ({@code client.p12}, opened with
     * {@code password}), and {@code ca.pem} beside it: the server certificate {@link #create} made
     * in {@code dir} followed by the client's, the CA file for a server that checks client
     * certificates. Empty (with the reason on stderr) when openssl fails.
     */
    public static Optional<Path> clientKeyStore(Path dir, char[] password) throws IOException, InterruptedException {
        Path cert = dir.resolve("client.crt");
        Path key = dir.resolve("client.key");
        Path store = dir.resolve("client.p12");
        Path log = dir.resolve("openssl-client.log");
        List<List<String>> commands = List.of(
                List.of(
                        "openssl",
                        "req",
                        "-x509",
                        "-newkey",
                        "ec",
                        "-pkeyopt",
                        "ec_paramgen_curve:prime256v1",
                        "-nodes",
                        "-days",
                        "2",
                        "-subj",
                        "/CN=lockkit-test-client",
                        "-keyout",
                        key.toString(),
                        "-out",
                        cert.toString()),
                List.of(
                        "openssl",
                        "pkcs12",
                        "-export",
                        "-in",
                        cert.toString(),
                        "-inkey",
                        key.toString(),
                        "-name",
                        "client",
                        "-out",
                        store.toString(),
                        "-passout",
                        "pass:" + new String(password)));
        for (List<String> command : commands) {
            Process openssl = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            if (!openssl.waitFor(30, TimeUnit.SECONDS) || openssl.exitValue() != 0) {
                openssl.destroyForcibly();
                System.err.println(
                        "openssl could not make a client key store: " + Files.readString(log, StandardCharsets.UTF_8));
                return Optional.empty();
            }
        }
        Files.writeString(
                dir.resolve("ca.pem"),
                Files.readString(dir.resolve("redis.crt"), StandardCharsets.US_ASCII)
                        + Files.readString(cert, StandardCharsets.US_ASCII),
                StandardCharsets.US_ASCII);
        return Optional.of(store);
    }
}
