package io.lockkit.it;

/** The server tests on Payara Server 6 (Jakarta EE 10, a domain started with asadmin). */
class PayaraServerIT extends ServerTests {

    PayaraServerIT() {
        super(ServerKind.PAYARA_SERVER);
    }
}
