package io.lockkit.it;

/** The server tests on Open Liberty (Jakarta EE 10 features with concurrent-3.0). */
class OpenLibertyIT extends ServerTests {

    OpenLibertyIT() {
        super(ServerKind.OPEN_LIBERTY);
    }

    /**
     * This run talks to Redis over TLS ({@code rediss://}, the test's own certificate in a trust
     * store given by configuration, its password in server.xml rather than on the command line):
     * every connection of instance a is on the TLS port.
     */
    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.Order(13)
    void redisConnectionsAreTls() {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                tlsPort != 0, "TLS Redis unavailable here (see the warning at the start); this run used redis://");
        a.http.post("counter/tls-c/locked").ok();
        java.util.List<String> clients = Inspect.redisClients(redis, clientName("a"));
        report("Redis connections of a: " + clients.size() + " on the TLS port " + tlsPort + ": "
                + clients.stream().allMatch(l -> l.contains(":" + tlsPort + " ")));
        org.assertj.core.api.Assertions.assertThat(a.http.get("factory").ok()).contains("rediss://");
        org.assertj.core.api.Assertions.assertThat(clients)
                .isNotEmpty()
                .allSatisfy(line ->
                        org.assertj.core.api.Assertions.assertThat(line).contains(" laddr=127.0.0.1:" + tlsPort + " "));
    }
}
