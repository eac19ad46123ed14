package io.lockkit.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Stereotype;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Future;

/** Beans whose {@code @Locked} cannot work; each must fail deployment (or, where a check cannot see it, the first call). */
final class Misuses {

    private Misuses() {}

    @ApplicationScoped
    public static class UnknownParameter {
        @Locked("order:{ordr}")
        public void ship(long order) {}
    }

    @ApplicationScoped
    public static class UnclosedBrace {
        @Locked("order:{id")
        public void ship(long id) {}
    }

    @ApplicationScoped
    public static class UnknownProperty {
        @Locked("customer:{order.customer.name}")
        public void ship(Templates.Order order) {}
    }

    @ApplicationScoped
    public static class PositionOutOfRange {
        @Locked("{2}")
        public void ship(long id) {}
    }

    @ApplicationScoped
    public static class ArrayParameter {
        @Locked("batch:{ids}")
        public void ship(long[] ids) {}
    }

    @ApplicationScoped
    public static class PeriodOfAString {
        @Locked("report:{period:PT1S:note}")
        public void run(String note) {}
    }

    @ApplicationScoped
    public static class PrivateMethod {
        public void call() {
            secret();
        }

        @Locked
        private void secret() {}
    }

    @ApplicationScoped
    public static class SkipOnPrimitive {
        @Locked(waitTime = 0, whenBusy = WhenBusy.SKIP)
        public int count() {
            return 1;
        }
    }

    @ApplicationScoped
    public static class PlainFuture {
        @Locked
        public Future<String> run() {
            return null;
        }
    }

    @ApplicationScoped
    public static class EstimatedUnit {
        @Locked(waitTime = 1, waitUnit = ChronoUnit.MONTHS)
        public void run() {}
    }

    @ApplicationScoped
    public static class ZeroLease {
        @Locked(leaseTime = 0)
        public void run() {}
    }

    /** A stereotype carrying a bad template: the deployment walk follows stereotypes, so deployment fails. */
    @Stereotype
    @Locked("tenant:{tenantId}")
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    public @interface TenantLocked {}

    @ApplicationScoped
    @TenantLocked
    public static class ThroughStereotype {
        public void run(String tenant) {}
    }
}
