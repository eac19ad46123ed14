package io.lockkit.it.app;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** One booked seat of a slot; a slot holds one booking, so two rows for a slot are a duplicate. */
@Entity
@Table(name = "LOCKKIT_IT_BOOKING")
public class Booking {

    @Id
    private String id;

    private String slot;
    private String who;

    protected Booking() {}

    Booking(String id, String slot, String who) {
        this.id = id;
        this.slot = slot;
        this.who = who;
    }

    public String getId() {
        return id;
    }

    public String getSlot() {
        return slot;
    }

    public String getWho() {
        return who;
    }
}
