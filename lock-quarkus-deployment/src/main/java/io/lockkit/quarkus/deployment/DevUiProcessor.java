package io.lockkit.quarkus.deployment;

import io.lockkit.quarkus.internal.LockkitDevUiService;
import io.quarkus.deployment.IsLocalDevelopment;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.BuildSteps;
import io.quarkus.deployment.builditem.AdditionalIndexedClassesBuildItem;
import io.quarkus.devui.spi.JsonRPCProvidersBuildItem;
import io.quarkus.devui.spi.page.CardPageBuildItem;
import io.quarkus.devui.spi.page.Page;

/** The Dev UI card: the backend in use and a page of the locks the application holds. */
// Design notes.
// - Both labels are JSON-RPC calls (LockkitDevUiService), made when the Dev UI shows the card: the
//   backend as the factory describes it (provider, address, key prefix) and the number of held locks.
// - The locks page (dev-ui/qwc-lockkit-locks.js) lists this application's holds and refreshes on demand
//   only: a listing is a scan of the backend, which an open browser tab should not repeat unasked.
@BuildSteps(onlyIf = IsLocalDevelopment.class)
class DevUiProcessor {

    @BuildStep
    CardPageBuildItem card() {
        CardPageBuildItem card = new CardPageBuildItem();
        card.addPage(Page.webComponentPageBuilder()
                .title("Held locks")
                .icon("font-awesome-solid:lock")
                .componentLink("qwc-lockkit-locks.js")
                .dynamicLabelJsonRPCMethodName("getHeldLockCount"));
        card.addPage(Page.webComponentPageBuilder()
                .title("Backend")
                .icon("font-awesome-solid:server")
                .componentLink("qwc-lockkit-backend.js")
                .dynamicLabelJsonRPCMethodName("getBackend"));
        return card;
    }

    @BuildStep
    JsonRPCProvidersBuildItem jsonRpc() {
        return new JsonRPCProvidersBuildItem(LockkitDevUiService.class);
    }

    /** The Dev UI finds a provider's methods in the index, which the extension's runtime jar is not part of. */
    @BuildStep
    AdditionalIndexedClassesBuildItem indexJsonRpc() {
        return new AdditionalIndexedClassesBuildItem(LockkitDevUiService.class.getName());
    }
}
