package io.lockkit.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/** How the meter classes register a family of counters keyed by an enum, and a count's gauge. Stateless. */
final class MeterFamilies {
    private MeterFamilies() {}

    /**
     * One counter {@code name} per constant of {@code type}, tagged {@code tag} with the constant's
     * {@linkplain #tagValue tag value}; each is also added to {@code all}.
     */
    static <E extends Enum<E>> EnumMap<E, Counter> counters(
            Class<E> type,
            String name,
            String tag,
            String description,
            MeterRegistry registry,
            Tags tags,
            List<Meter> all) {
        EnumMap<E, Counter> counters = new EnumMap<>(type);
        for (E constant : type.getEnumConstants()) {
            Counter counter = Counter.builder(name)
                    .tags(tags)
                    .tag(tag, tagValue(constant))
                    .description(description)
                    .register(registry);
            counters.put(constant, counter);
            all.add(counter);
        }
        return counters;
    }

    /** A gauge of {@code count}, held by a strong reference (it does not turn to NaN when unreferenced). */
    static Gauge gauge(String name, AtomicInteger count, String description, MeterRegistry registry, Tags tags) {
        return Gauge.builder(name, count, AtomicInteger::get)
                .tags(tags)
                .strongReference(true)
                .description(description)
                .register(registry);
    }

    /** The meter of {@code key}; every constant has one, so a missing one is a bug here. */
    static <E extends Enum<E>, M> M meterFor(EnumMap<E, M> family, E key) {
        M meter = family.get(key);
        if (meter == null) {
            throw new IllegalStateException("no meter for " + key);
        }
        return meter;
    }

    /** The tag value of an enum constant: its name in lower case. */
    static String tagValue(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
