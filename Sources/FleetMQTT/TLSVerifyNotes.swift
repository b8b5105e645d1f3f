import COpenSSL
import Synchronization

/// The TLS context the client hands libmosquitto (`MOSQ_OPT_SSL_CTX`, without libmosquitto's
/// defaults): the same checks libmosquitto would make — the broker's certificate verified
/// against the CA file (or the system's store) and its host name or IP address against the
/// certificate (OpenSSL's own check), the client certificate and key when given — and one
/// thing more: an info callback that notes, when this side ends the handshake with an alert,
/// why in OpenSSL's words ("certificate has expired", "unable to get local issuer
/// certificate", "hostname mismatch"). libmosquitto itself says only "certificate verify
/// failed". One note per context, taken once.
enum TLSVerifyNotes {
    private static let notes = Mutex<[UInt: String]>([:])

    /// A client context for `host`, or a line saying which file OpenSSL refused.
    static func makeContext(host: String, isAddress: Bool, caFile: String?, certificate: String?, key: String?)
        -> Result<OpaquePointer, TLSContextProblem> {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { return .failure(TLSContextProblem(text: "OpenSSL cannot make a TLS context")) }
        func fail(_ text: String) -> Result<OpaquePointer, TLSContextProblem> {
            SSL_CTX_free(ctx)
            return .failure(TLSContextProblem(text: text))
        }
        if let caFile {
            guard SSL_CTX_load_verify_locations(ctx, caFile, nil) == 1 else { return fail("the CA file \(caFile) holds no usable certificate") }
        } else {
            guard SSL_CTX_load_verify_locations(ctx, nil, "/etc/ssl/certs") == 1 else { return fail("the system's CA store /etc/ssl/certs cannot be used") }
        }
        if let certificate {
            guard SSL_CTX_use_certificate_chain_file(ctx, certificate) == 1 else { return fail("the client certificate \(certificate) cannot be used") }
            guard let key, SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1, SSL_CTX_check_private_key(ctx) == 1 else {
                return fail("the client key \(key ?? "(none)") cannot be used with \(certificate)")
            }
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        guard let param = SSL_CTX_get0_param(ctx),
              (isAddress ? X509_VERIFY_PARAM_set1_ip_asc(param, host) : X509_VERIFY_PARAM_set1_host(param, host, 0)) == 1 else {
            return fail("the broker's host \(host) cannot be checked against its certificate")
        }
        SSL_CTX_set_info_callback(ctx) { ssl, whereFlags, alert in
            guard let ssl, whereFlags & COPENSSL_CB_WRITE_ALERT == COPENSSL_CB_WRITE_ALERT, let ctx = SSL_get_SSL_CTX(ssl) else { return }
            let result = SSL_get_verify_result(ssl)
            let text = result != X509_V_OK ? String(cString: X509_verify_cert_error_string(result))
                : "the handshake ended with the alert \"" + String(cString: SSL_alert_desc_string_long(alert)) + "\""
            TLSVerifyNotes.notes.withLock { $0[TLSVerifyNotes.key(ctx)] = text }
        }
        return .success(ctx)
    }

    /// The note for `ctx` since the last call (nil: none), removed.
    static func take(_ ctx: OpaquePointer) -> String? {
        notes.withLock { $0.removeValue(forKey: key(ctx)) }
    }

    private static func key(_ ctx: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(ctx))) }
}

/// Why the TLS context could not be made (a file OpenSSL refused).
struct TLSContextProblem: Error {
    let text: String
}
