package io.lockkit.it.app;

import io.lockkit.DistributedLockFactory;
import io.lockkit.Leadership;
import io.lockkit.cdi.LeaderOf;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;

/** The HTTP face of the test application: each endpoint runs one service method and answers in plain text. */
@Path("/")
@RequestScoped
@Produces(MediaType.TEXT_PLAIN)
public class ItResource {

    @Inject
    CounterService counter;

    @Inject
    BookingService bookings;

    @Inject
    BookingStore store;

    @EJB
    BookingEjb ejb;

    @Inject
    WorkService work;

    @Inject
    DistributedLockFactory factory;

    @Inject
    @LeaderOf("cleanup")
    Leadership cleanup;

    /** Up: the instance and the deployment's id (touches no lockkit bean, so it answers even when lockkit fails). */
    @GET
    @Path("health")
    public String health() {
        return "up " + SharedState.instance() + " " + SharedState.DEPLOYMENT;
    }

    /** The injected factory's description: its toString reaches the bean, not only the client proxy. */
    @GET
    @Path("factory")
    public String factory() {
        return factory.toString();
    }

    @POST
    @Path("counter/{id}/locked")
    public String incrementLocked(@PathParam("id") String id) {
        return Integer.toString(counter.incrementLocked(id));
    }

    @POST
    @Path("counter/{id}/unlocked")
    public String incrementUnlocked(@PathParam("id") String id) {
        return Integer.toString(counter.incrementUnlocked(id));
    }

    @GET
    @Path("counter/{id}")
    public String counter(@PathParam("id") String id) {
        return Integer.toString(SharedState.read(id));
    }

    @POST
    @Path("bookings/{slot}/locked-transactional")
    public String lockedTransactional(@PathParam("slot") String slot, @QueryParam("who") String who) {
        return Boolean.toString(bookings.lockedTransactional(slot, who));
    }

    @POST
    @Path("bookings/{slot}/transactional-calls-locked")
    public String transactionalCallsLocked(@PathParam("slot") String slot, @QueryParam("who") String who) {
        return Boolean.toString(bookings.transactionalCallsLocked(slot, who));
    }

    @POST
    @Path("bookings/{slot}/ejb")
    public String ejb(@PathParam("slot") String slot, @QueryParam("who") String who) {
        return Boolean.toString(ejb.book(slot, who));
    }

    @GET
    @Path("bookings/{slot}")
    public String bookings(@PathParam("slot") String slot) {
        return Long.toString(store.count(slot));
    }

    @POST
    @Path("report/{id}")
    public CompletionStage<String> report(@PathParam("id") String id, @QueryParam("millis") long millis) {
        return work.report(id, millis);
    }

    @POST
    @Path("job/{id}")
    public String job(@PathParam("id") String id, @QueryParam("millis") long millis) {
        String result = work.runIfFree(id, millis);
        return result == null ? "skipped" : result;
    }

    @POST
    @Path("slow")
    public String slow(@QueryParam("millis") long millis) {
        return work.slow(millis);
    }

    /** Whether this instance leads {@code cleanup}: {@code leader <token>} or {@code follower}. */
    @GET
    @Path("leader")
    public String leader() {
        return cleanup.currentTerm()
                .map(term -> "leader " + term.fencingToken())
                .orElse("follower");
    }

    /** Gives the lead of {@code cleanup} away (this instance campaigns again after the rejoin delay). */
    @POST
    @Path("leader/step-down")
    public String stepDown() {
        cleanup.stepDown();
        return leader();
    }

    /** Names of the live threads whose name starts with lockkit, one a line. */
    @GET
    @Path("threads")
    public String threads() {
        return Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(name -> name.toLowerCase(Locale.ROOT).startsWith("lockkit"))
                .sorted()
                .collect(Collectors.joining("\n"));
    }
}
