import { LitElement, html, css } from 'lit';
import { JsonRpc } from 'jsonrpc';
import { columnBodyRenderer } from '@vaadin/grid/lit.js';
import '@vaadin/grid';
import '@vaadin/grid/vaadin-grid-sort-column.js';
import '@vaadin/button';

/**
 * The locks this application holds now (name, holder, fencing token, lease left), read from the
 * backend when the page opens and when Refresh is pressed.
 */
export class QwcLockkitLocks extends LitElement {

    jsonRpc = new JsonRpc(this);

    static styles = css`
        :host {
            display: flex;
            flex-direction: column;
            height: 100%;
            gap: 8px;
        }
        .bar {
            display: flex;
            align-items: center;
            gap: 12px;
            padding: 0 5px;
        }
        .backend {
            color: var(--lumo-contrast-70pct);
            font-size: 90%;
        }
        .error {
            color: var(--lumo-error-text-color);
            padding: 0 5px;
        }
        vaadin-grid {
            height: 100%;
        }
    `;

    static properties = {
        _backend: { state: true },
        _locks: { state: true },
        _error: { state: true },
        _loading: { state: true }
    };

    connectedCallback() {
        super.connectedCallback();
        this._refresh();
    }

    render() {
        return html`
            <div class="bar">
                <vaadin-button theme="small" @click=${this._refresh} ?disabled=${this._loading}>Refresh</vaadin-button>
                <span class="backend">${this._backend ?? ''}</span>
            </div>
            ${this._error ? html`<div class="error">${this._error}</div>` : ''}
            <vaadin-grid .items=${this._locks ?? []} theme="no-border">
                <vaadin-grid-sort-column path="name" header="Name" auto-width resizable></vaadin-grid-sort-column>
                <vaadin-grid-sort-column path="holder" header="Holder" auto-width resizable></vaadin-grid-sort-column>
                <vaadin-grid-sort-column path="fencingToken" header="Fencing token" auto-width></vaadin-grid-sort-column>
                <vaadin-grid-sort-column path="leaseLeftMillis" header="Lease left"
                    ${columnBodyRenderer(lock => html`${(lock.leaseLeftMillis / 1000).toFixed(1)} s`, [])}
                    auto-width></vaadin-grid-sort-column>
                <vaadin-grid-sort-column path="holdCount" header="Holds" auto-width></vaadin-grid-sort-column>
                <vaadin-grid-sort-column path="waiters" header="Waiters"
                    ${columnBodyRenderer(lock => html`${lock.waiters < 0 ? 'unknown' : lock.waiters}`, [])}
                    auto-width></vaadin-grid-sort-column>
            </vaadin-grid>`;
    }

    _refresh() {
        this._loading = true;
        this._error = null;
        Promise.all([this.jsonRpc.getBackend(), this.jsonRpc.getHeldLocks()])
            .then(([backend, locks]) => {
                this._backend = backend.result;
                this._locks = locks.result;
            })
            .catch(error => {
                this._error = 'lockkit could not list the locks: ' + (error?.error?.message ?? error);
            })
            .finally(() => {
                this._loading = false;
            });
    }
}
customElements.define('qwc-lockkit-locks', QwcLockkitLocks);
