import { LitElement, html, css } from 'lit';
import { JsonRpc } from 'jsonrpc';
import '@vaadin/button';

/** The backend the application's lock factory uses and the client id its holds carry. */
export class QwcLockkitBackend extends LitElement {

    jsonRpc = new JsonRpc(this);

    static styles = css`
        :host {
            display: flex;
            flex-direction: column;
            gap: 8px;
            padding: 10px;
        }
        .error {
            color: var(--lumo-error-text-color);
        }
    `;

    static properties = {
        _backend: { state: true },
        _clientId: { state: true },
        _error: { state: true }
    };

    connectedCallback() {
        super.connectedCallback();
        this._refresh();
    }

    render() {
        return html`
            <div>Backend: <code>${this._backend ?? ''}</code></div>
            <div>Client id of this application's holds: <code>${this._clientId ?? ''}</code></div>
            ${this._error ? html`<div class="error">${this._error}</div>` : ''}
            <vaadin-button theme="small" @click=${this._refresh}>Refresh</vaadin-button>`;
    }

    _refresh() {
        this._error = null;
        Promise.all([this.jsonRpc.getBackend(), this.jsonRpc.getClientId()])
            .then(([backend, clientId]) => {
                this._backend = backend.result;
                this._clientId = clientId.result;
            })
            .catch(error => {
                this._error = 'lockkit could not reach its backend: ' + (error?.error?.message ?? error);
            });
    }
}
customElements.define('qwc-lockkit-backend', QwcLockkitBackend);
