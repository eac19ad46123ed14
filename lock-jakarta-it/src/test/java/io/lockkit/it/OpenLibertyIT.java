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
        assertConnectionsOfAAreTls();
    }
}
