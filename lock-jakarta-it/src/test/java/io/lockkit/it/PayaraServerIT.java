package io.lockkit.it;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** The server tests on Payara Server 6 (Jakarta EE 10, a domain started with asadmin). */
class PayaraServerIT extends ServerTests {

    PayaraServerIT() {
        super(ServerKind.PAYARA_SERVER);
    }

    /**
     * This run talks to Redis over TLS ({@code rediss://}), and the trust store's password is in
     * neither the application nor the domain's configuration: it is a password alias named
     * {@code lockkit.redis.tls.trust-store-password} ({@code asadmin create-password-alias}), which
     * Payara's MicroProfile Config serves as that property. Every connection of instance a is on the
     * TLS port, which the application could not have opened without the password.
     */
    @Test
    @Order(13)
    void trustStorePasswordComesFromAPasswordAlias() {
        Assumptions.assumeTrue(
                tlsPort != 0, "TLS Redis unavailable here (see the warning at the start); this run used redis://");
        GlassFishInstance server = (GlassFishInstance) a;
        String domainXml = server.domainXml();
        assertThat(domainXml).as("domain.xml").contains("lockkit.redis.tls.trust-store=");
        assertThat(domainXml).as("domain.xml").doesNotContain(TRUST_STORE_PASSWORD);
        assertThat(domainXml).as("domain.xml").doesNotContain(trustStorePassword());
        assertConnectionsOfAAreTls();
    }
}
