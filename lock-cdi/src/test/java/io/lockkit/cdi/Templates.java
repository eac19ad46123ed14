package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;

/** Methods that report the name of the lock they run under. */
@ApplicationScoped
public class Templates {

    /** A JavaBean with a getter leading to a record. */
    public static class Order {
        private final Customer customer;
        private final int quantity;
        private final boolean express;

        public Order(Customer customer, int quantity, boolean express) {
            this.customer = customer;
            this.quantity = quantity;
            this.express = express;
        }

        public Customer getCustomer() {
            return customer;
        }

        public int getQuantity() {
            return quantity;
        }

        public boolean isExpress() {
            return express;
        }
    }

    public record Customer(String id) {}

    /** What a scheduler tells a job of its call, as Quarkus' {@code ScheduledExecution} does: a getter. */
    public static class Firing {
        private final Instant scheduledFireTime;

        public Firing(Instant scheduledFireTime) {
            this.scheduledFireTime = scheduledFireTime;
        }

        public Instant getScheduledFireTime() {
            return scheduledFireTime;
        }
    }

    @Locked("order:{orderId}")
    public String byName(long orderId, String note) {
        return current();
    }

    @Locked("region:{0}:{1}")
    public String byPosition(String region, int shard) {
        return current();
    }

    @Locked("customer:{order.customer.id}/qty:{order.quantity}/express:{order.isExpress}")
    public String byPathWithIs(Order order) {
        return current();
    }

    @Locked("customer:{order.customer.id}/qty:{order.quantity}/express:{order.express}")
    public String byPath(Order order) {
        return current();
    }

    @Locked("{0.customer.id}")
    public String byPositionalPath(Order order) {
        return current();
    }

    @Locked("{{literal}} job {id} of {{{tenant}}}")
    public String literalText(int id, String tenant) {
        return current();
    }

    @Locked("tick:{period:PT1M}")
    public String perMinute() {
        return current();
    }

    @Locked("report:{period:PT1S:firing.scheduledFireTime}")
    public String perScheduledSecond(Firing firing) {
        return current();
    }

    @Locked("report:{period:PT2S:0}/{period:PT1H:1}")
    public String perOffsetAndZonedTime(OffsetDateTime offset, ZonedDateTime zoned) {
        return current();
    }

    @Locked
    public String unnamed() {
        return current();
    }

    static String current() {
        return CurrentLock.handle().orElseThrow().name();
    }
}
