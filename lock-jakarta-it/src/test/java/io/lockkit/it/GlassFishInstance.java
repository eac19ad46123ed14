package io.lockkit.it;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A Payara Server or GlassFish domain of its own (a copy of the distribution's {@code domain1} with
 * every port moved by a free offset), run in the foreground ({@code asadmin start-domain --verbose});
 * deploys through the domain's autodeploy directory and its {@code _deployed} /
 * {@code _deployFailed} / {@code _undeployed} markers, as the WildFly tests use the deployment
 * scanner.
 */
// Design notes.
// - A copy of domain1 rather than create-domain: create-domain makes key stores with keytool and took
//   over a minute here; the copy takes a second. Ports are literal in the server's configuration, so
//   they are rewritten in domain.xml, the OSGi shell's telnet port (a JVM option) and Payara's
//   Hazelcast ports included, so two domains run side by side.
// - GlassFish's default datasource (jdbc/__default) is a Derby network client that needs
//   asadmin start-database: it becomes an embedded Derby database in the domain instead, as the
//   domain's EJB timer pool already is. Payara's is an embedded H2 database already.
// - System properties go into domain.xml as JVM options, which is how an administrator sets them.
// - A secret kept in Payara's password alias store (passwordAlias) is created with asadmin
//   create-password-alias once the domain answers, and the application is copied to autodeploy only
//   then: Payara's MicroProfile Config serves each alias as the property of the same name.
// - The log the tests read is the verbose start's console output: it carries server.log's records,
//   and GlassFish 7 held its server.log back (81 lines, the start) for the whole run.
final class GlassFishInstance extends ServerInstance {

    private static final String WAR = CONTEXT + ".war";
    private static final String BROKEN_WAR = CONTEXT + "-misconfigured.war";
    private static final int[] PORTS = {8080, 8181, 4848, 3700, 3820, 3920, 8686, 7676, 6666, 5900, 4900};

    private final Path home;
    private final Path domains;
    private final Path domain;
    private final Path autodeploy;
    private final int offset;
    /** Password aliases to create before the application is deployed, alias to secret. */
    private final Map<String, String> passwordAliases = new java.util.LinkedHashMap<>();

    GlassFishInstance(ServerKind kind, String name) {
        super(kind, name);
        Path unpacked = Settings.work().resolve("dist-" + kind.id + "-" + kind.version());
        Processes.unzipOnce(kind.distribution(), unpacked);
        try (Stream<Path> children = Files.list(unpacked)) {
            this.home = children.filter(Files::isDirectory)
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no directory in " + unpacked));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.domains = dir.resolve("domains");
        this.domain = domains.resolve("it");
        Processes.copyTree(home.resolve("glassfish/domains/domain1"), domain);
        this.autodeploy = domain.resolve("autodeploy");
        this.offset = freePortOffset(PORTS);
    }

    @Override
    void launch(Map<String, String> properties) {
        configure(properties);
        try {
            Files.createDirectories(autodeploy);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (passwordAliases.isEmpty()) {
            copyWar(Settings.war(), WAR);
        }
        List<String> command = List.of(
                "bash",
                home.resolve("bin/asadmin").toString(),
                "start-domain",
                "--verbose",
                "--domaindir",
                domains.toString(),
                "it");
        Map<String, String> env = Map.of(
                "JAVA_HOME", Settings.javaHome().toString(),
                "AS_JAVA", Settings.javaHome().toString());
        process = Processes.start(command, dir, dir.resolve("console.log"), env);
    }

    /** Ports, the default datasource and the JVM options in domain.xml. */
    private void configure(Map<String, String> properties) {
        Path config = domain.resolve("config/domain.xml");
        try {
            String xml = Files.readString(config);
            for (int port : PORTS) {
                xml = xml.replace("port=\"" + port + "\"", "port=\"" + (port + offset) + "\"");
            }
            xml = xml.replace(
                            "name=\"JMS_PROVIDER_PORT\" value=\"7676\"",
                            "name=\"JMS_PROVIDER_PORT\" value=\"" + (7676 + offset) + "\"")
                    .replace("-Dosgi.shell.telnet.port=6666", "-Dosgi.shell.telnet.port=" + (6666 + offset))
                    .replace("das-port=\"4900\"", "das-port=\"" + (4900 + offset) + "\"");
            if (kind == ServerKind.GLASSFISH) {
                xml = xml.replaceFirst(
                        "(?s)<jdbc-connection-pool ([^>]*)name=\"DerbyPool\" datasource-classname=\"org.apache.derby.jdbc.ClientDataSource\"([^>]*)>.*?</jdbc-connection-pool>",
                        "<jdbc-connection-pool $1name=\"DerbyPool\""
                                + " datasource-classname=\"org.apache.derby.jdbc.EmbeddedDataSource\"$2>\n"
                                + "      <property name=\"databaseName\""
                                + " value=\"\\${com.sun.aas.instanceRoot}/lib/databases/lockkit-it\"/>\n"
                                + "      <property name=\"connectionAttributes\" value=\";create=true\"/>\n"
                                + "    </jdbc-connection-pool>");
            }
            StringBuilder options = new StringBuilder();
            List<String> jvm = new ArrayList<>(jvmOptions());
            jvm.addAll(systemProperties(properties));
            for (String option : jvm) {
                if (!option.startsWith("-XX:MaxMetaspaceSize") && !option.startsWith("-Xms")) {
                    options.append("        <jvm-options>")
                            .append(option.replace("&", "&amp;").replace("<", "&lt;"))
                            .append("</jvm-options>\n");
                }
            }
            // The first java-config is the server's (server-config precedes default-config).
            int at = xml.indexOf("</java-config>");
            xml = xml.substring(0, at) + options + "      " + xml.substring(at);
            Files.writeString(config, xml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    void passwordAlias(String alias, String secret) {
        if (kind != ServerKind.PAYARA_SERVER) {
            super.passwordAlias(alias, secret);
        }
        passwordAliases.put(alias, secret);
    }

    @Override
    void awaitApplication() {
        if (!passwordAliases.isEmpty() && !Files.exists(autodeploy.resolve(WAR))) {
            passwordAliases.forEach(this::createPasswordAlias);
            copyWar(Settings.war(), WAR);
        }
        awaitMarker(WAR, START_TIMEOUT.plus(DEPLOY_TIMEOUT));
        awaitHealth(DEPLOY_TIMEOUT);
    }

    /**
     * Runs {@code asadmin create-password-alias} against this domain as an administrator would (the
     * secret in a password file, never on the command line), retrying until the domain answers.
     */
    private void createPasswordAlias(String alias, String secret) {
        Path passwordFile = dir.resolve("alias-password.txt");
        List<String> command = List.of(
                "bash",
                home.resolve("bin/asadmin").toString(),
                "--port",
                Integer.toString(4848 + offset),
                "--interactive=false",
                "--passwordfile",
                passwordFile.toString(),
                "create-password-alias",
                alias);
        String[] last = {""};
        try {
            Files.writeString(passwordFile, "AS_ADMIN_ALIASPASSWORD=" + secret + "\n");
            await(this + " creates the password alias " + alias)
                    .atMost(START_TIMEOUT)
                    .pollInterval(Duration.ofSeconds(2))
                    .until(() -> {
                        requireAlive();
                        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
                        builder.environment()
                                .put("JAVA_HOME", Settings.javaHome().toString());
                        builder.environment().put("AS_JAVA", Settings.javaHome().toString());
                        Process asadmin = builder.start();
                        last[0] = new String(
                                asadmin.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                        return asadmin.waitFor() == 0;
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(this + ": asadmin create-password-alias " + alias + " failed: " + last[0], e);
        } finally {
            try {
                Files.deleteIfExists(passwordFile);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** The domain's configuration (domain.xml) as it is on disk. */
    String domainXml() {
        try {
            return Files.readString(domain.resolve("config/domain.xml"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits for {@code _deployed} (returns) or {@code _deployFailed} (throws with the log). */
    private void awaitMarker(String war, Duration timeout) {
        Path deployed = autodeploy.resolve(war + "_deployed");
        Path failed = autodeploy.resolve(war + "_deployFailed");
        await(this + " deploys " + war)
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    requireAlive();
                    return Files.exists(deployed) || Files.exists(failed);
                });
        if (Files.exists(failed)) {
            throw new AssertionError(this + ": " + war + " failed to deploy; log tail:\n" + logTail(60));
        }
    }

    @Override
    void beginUndeploy() {
        try {
            Files.delete(autodeploy.resolve(WAR));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    void awaitUndeployed() {
        await(this + " undeploys " + WAR)
                .atMost(DEPLOY_TIMEOUT)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    requireAlive();
                    return Files.exists(autodeploy.resolve(WAR + "_undeployed"))
                            && !Files.exists(autodeploy.resolve(WAR + "_deployed"));
                });
    }

    @Override
    boolean undeployLeavesNoApplication() {
        return true;
    }

    @Override
    void deployAgain() {
        try {
            Files.deleteIfExists(autodeploy.resolve(WAR + "_undeployed"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        copyWar(Settings.war(), WAR);
        awaitApplication();
    }

    @Override
    DeploymentOutcome deployWithConfig(String config) {
        Path variant = dir.resolve(BROKEN_WAR);
        try {
            Files.copy(Settings.war(), variant, StandardCopyOption.REPLACE_EXISTING);
            try (FileSystem zip = FileSystems.newFileSystem(URI.create("jar:" + variant.toUri()), Map.of())) {
                Path file = zip.getPath("WEB-INF/classes/META-INF/microprofile-config.properties");
                Files.createDirectories(file.getParent());
                Files.writeString(file, "config_ordinal=500\n" + config);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long before = logSize();
        copyWar(variant, BROKEN_WAR);
        Path deployed = autodeploy.resolve(BROKEN_WAR + "_deployed");
        Path failed = autodeploy.resolve(BROKEN_WAR + "_deployFailed");
        await(this + " deploys " + BROKEN_WAR)
                .atMost(DEPLOY_TIMEOUT)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> Files.exists(deployed) || Files.exists(failed));
        boolean ok = Files.exists(deployed);
        String text = logSince(before);
        try {
            Files.delete(autodeploy.resolve(BROKEN_WAR));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (ok) {
            await(this + " removes " + BROKEN_WAR)
                    .atMost(DEPLOY_TIMEOUT)
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> Files.exists(autodeploy.resolve(BROKEN_WAR + "_undeployed")));
        }
        return new DeploymentOutcome(ok, text);
    }

    @Override
    boolean deploysOtherApplications() {
        return true;
    }

    @Override
    void deployOther(Path war, String name) {
        copyWar(war, name + ".war");
        awaitMarker(name + ".war", DEPLOY_TIMEOUT);
    }

    @Override
    void undeployOther(String name) {
        try {
            Files.delete(autodeploy.resolve(name + ".war"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        await(this + " undeploys " + name)
                .atMost(DEPLOY_TIMEOUT)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> Files.exists(autodeploy.resolve(name + ".war_undeployed")));
    }

    private void copyWar(Path war, String as) {
        try {
            Path tmp = dir.resolve(as + ".copying");
            Files.copy(war, tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, autodeploy.resolve(as), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    String baseUrl() {
        return "http://127.0.0.1:" + (8080 + offset) + "/" + CONTEXT + "/api/";
    }

    /** MicroProfile Health on the HTTP port: Payara Server only (GlassFish 7 has no MicroProfile). */
    @Override
    java.util.Optional<URI> readinessUrl() {
        return kind == ServerKind.PAYARA_SERVER
                ? java.util.Optional.of(URI.create("http://127.0.0.1:" + (8080 + offset) + "/health/ready"))
                : java.util.Optional.empty();
    }

    @Override
    long javaPid() {
        return process.toHandle()
                .descendants()
                .filter(handle -> handle.info()
                        .commandLine()
                        .map(c -> c.contains("ASMain") || c.contains("modules/glassfish.jar"))
                        .orElse(false))
                .findFirst()
                .orElseThrow(() -> new AssertionError(this + ": no server JVM under " + process.pid()))
                .pid();
    }
}
