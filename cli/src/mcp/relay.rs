//! What a downstream server asks of its client while it serves a call, `elicitation/create` (a
//! question for the user) and `sampling/createMessage` (a completion by the model), passed on to
//! the gateway's client whose call it is, when that client declared the capability; refused
//! with an error saying why otherwise. A server of 2025-11-25 or before sends such a request on
//! the call's response stream (or on stdio); one of 2026-07-28 answers the call
//! `input_required` (SEP-2322) and the call is sent again with the answers
//! ([`super::downstream`]). An accepted form gets the schema's defaults for the fields the answer
//! leaves out (SEP-1034). Sampling is deprecated by SEP-2577 (rmcp warns so); 2025-11-25 and
//! 2026-07-28 still have it.
#![allow(deprecated)]

use rmcp::model::{
    ClientResult, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest, RequestId,
    ServerRequest,
};
use rmcp::service::{InboundStreamOrigin, OriginatingRequestId};
use rmcp::{ErrorData, Peer, RoleServer};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Notify;

/// The gateway's client a call came from.
#[derive(Clone)]
pub struct Caller {
    pub peer: Peer<RoleServer>,
    /// Its request: a request made on its behalf goes out on that request's stream.
    pub request: RequestId,
    /// Its session's number (calls of one session may share a relay without an origin).
    pub session: u64,
}

/// The calls in flight on one downstream connection, by the downstream request's id.
///
/// A call's id is known only once rmcp has sent it, so a server quick to ask its client (an
/// elicitation on the call's own response stream) can be heard before the call is registered:
/// [`Calls::find`] waits for the registrations under way ([`Calls::sending`]) before it gives up.
#[derive(Default)]
pub struct Calls {
    map: Mutex<HashMap<RequestId, Caller>>,
    /// Calls sent or being sent whose registration is still to come.
    sending: AtomicUsize,
    /// Signalled when one of those is done.
    registered: Notify,
}

/// How long a server's request waits for a registration under way: far more than the moment
/// between a call's sending and its registration, even on a loaded machine.
const REGISTRATION_WAIT: Duration = Duration::from_secs(5);

/// A call being sent: while it lives, [`Calls::find`] waits for registrations; dropped (the call
/// registered, or its sending failed), it wakes the waiting.
pub struct Sending<'a>(&'a Calls);

impl Drop for Sending<'_> {
    fn drop(&mut self) {
        self.0.sending.fetch_sub(1, Ordering::SeqCst);
        self.0.registered.notify_waiters();
    }
}

impl Calls {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Caller>> {
        self.map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Marks a call as being sent, before it is: keep the guard until the call is registered.
    pub fn sending(&self) -> Sending<'_> {
        self.sending.fetch_add(1, Ordering::SeqCst);
        Sending(self)
    }

    pub fn insert(&self, id: RequestId, caller: Caller) {
        self.map().insert(id, caller);
    }

    pub fn remove(&self, id: &RequestId) {
        self.map().remove(id);
    }

    /// The caller of the call a server's request belongs to: the call whose response stream it
    /// came on; without that (stdio, or the server's standalone stream), the one session every
    /// call in flight comes from, if there is one (a request is never shown to another
    /// session's client). While a call is being sent it may be that one: wait for it (at most
    /// [`REGISTRATION_WAIT`]); with none being sent, the answer is now.
    pub async fn find(&self, origin: Option<&InboundStreamOrigin>) -> Option<Caller> {
        let deadline = tokio::time::Instant::now() + REGISTRATION_WAIT;
        loop {
            // Listening before looking: a registration between the two still wakes us.
            let registered = self.registered.notified();
            tokio::pin!(registered);
            registered.as_mut().enable();
            {
                let map = self.map();
                if let Some(id) = pick(map.iter().map(|(id, c)| (id, c.session)), origin) {
                    return map.get(&id).cloned();
                }
            }
            if self.sending.load(Ordering::SeqCst) == 0 {
                return None;
            }
            tokio::time::timeout_at(deadline, registered).await.ok()?;
        }
    }
}

/// [`Calls::find`]'s choice among the calls in flight (their ids and sessions).
fn pick<'a>(
    calls: impl Iterator<Item = (&'a RequestId, u64)>,
    origin: Option<&InboundStreamOrigin>,
) -> Option<RequestId> {
    let calls: Vec<_> = calls.collect();
    if let Some(InboundStreamOrigin::OutboundRequest(id)) = origin {
        return calls
            .iter()
            .find(|(c, _)| *c == id)
            .map(|(c, _)| (*c).clone());
    }
    let (first, session) = calls.first()?;
    calls
        .iter()
        .all(|(_, s)| s == session)
        .then(|| (*first).clone())
}

fn refused(server: &str, method: &str, why: &str) -> ErrorData {
    ErrorData::invalid_request(
        format!("the gateway did not pass on {method} from MCP server {server:?}: {why}"),
        None,
    )
}

/// The client whose call a server's request belongs to; none (a request outside any call of a
/// client's) is refused.
fn of_a_call<'c>(
    caller: Option<&'c Caller>,
    server: &str,
    method: &str,
) -> Result<&'c Caller, ErrorData> {
    caller.ok_or_else(|| {
        refused(
            server,
            method,
            "it does not belong to a call of one of the gateway's clients",
        )
    })
}

/// Sends `request` to the caller's client on its call's stream and waits for the answer. From
/// a task of its own: inside a handler rmcp would mark the request as the handler's (the
/// downstream server's request id) rather than the caller's.
async fn ask(caller: &Caller, request: ServerRequest) -> Result<ClientResult, String> {
    let peer = caller.peer.clone();
    tokio::spawn(async move { peer.send_request(request).await })
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}

/// Passes on an `elicitation/create`.
pub async fn elicit(
    caller: Option<&Caller>,
    server: &str,
    params: ElicitRequestParams,
) -> Result<ElicitResult, ErrorData> {
    const METHOD: &str = "elicitation/create";
    let caller = of_a_call(caller, server, METHOD)?;
    let capability = caller
        .peer
        .peer_info()
        .and_then(|info| info.capabilities.elicitation.clone());
    let url_mode = matches!(params, ElicitRequestParams::UrlElicitationParams { .. });
    let supported = capability.is_some_and(|c| {
        if url_mode {
            c.url.is_some()
        } else {
            // An empty elicitation capability means forms (2025-11-25).
            c.form.is_some() || c.url.is_none()
        }
    });
    if !supported {
        let what = if url_mode { "URL" } else { "form" };
        return Err(refused(
            server,
            METHOD,
            &format!("the gateway's client did not declare {what} elicitation"),
        ));
    }
    let schema = match &params {
        ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } => serde_json::to_value(requested_schema).ok(),
        _ => None,
    };
    let mut request = ElicitRequest::new(params);
    request
        .extensions
        .insert(OriginatingRequestId(caller.request.clone()));
    match ask(caller, ServerRequest::ElicitRequest(request)).await {
        Ok(ClientResult::ElicitResult(mut result)) => {
            if let (ElicitationAction::Accept, Some(schema)) = (&result.action, &schema) {
                apply_defaults(&mut result.content, schema);
            }
            Ok(result)
        }
        Ok(_) => Err(refused(server, METHOD, "the client's answer was not one")),
        Err(e) => Err(refused(
            server,
            METHOD,
            &format!("the client answered: {e}"),
        )),
    }
}

/// Passes on a `sampling/createMessage`.
pub async fn sample(
    caller: Option<&Caller>,
    server: &str,
    params: CreateMessageRequestParams,
) -> Result<CreateMessageResult, ErrorData> {
    const METHOD: &str = "sampling/createMessage";
    let caller = of_a_call(caller, server, METHOD)?;
    let capability = caller
        .peer
        .peer_info()
        .and_then(|info| info.capabilities.sampling.clone());
    let Some(capability) = capability else {
        return Err(refused(
            server,
            METHOD,
            "the gateway's client did not declare sampling",
        ));
    };
    if (params.tools.is_some() || params.tool_choice.is_some()) && capability.tools.is_none() {
        return Err(refused(
            server,
            METHOD,
            "it has tools, and the gateway's client did not declare sampling with tools",
        ));
    }
    let mut request = CreateMessageRequest::new(params);
    request
        .extensions
        .insert(OriginatingRequestId(caller.request.clone()));
    match ask(caller, ServerRequest::CreateMessageRequest(request)).await {
        Ok(ClientResult::CreateMessageResult(result)) => Ok(*result),
        Ok(_) => Err(refused(server, METHOD, "the client's answer was not one")),
        Err(e) => Err(refused(
            server,
            METHOD,
            &format!("the client answered: {e}"),
        )),
    }
}

/// The answer to one of a 2026-07-28 server's `inputRequests`, as its `inputResponses` carry it.
pub async fn answer(
    caller: Option<&Caller>,
    server: &str,
    request: InputRequest,
) -> Result<Value, ErrorData> {
    let value = match request {
        InputRequest::Elicitation(r) => {
            serde_json::to_value(elicit(caller, server, r.params).await?)
        }
        InputRequest::CreateMessage(r) => {
            serde_json::to_value(sample(caller, server, r.params).await?)
        }
        _ => {
            return Err(refused(
                server,
                "roots/list",
                "the gateway does not pass on its clients' roots",
            ));
        }
    };
    value.map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

/// SEP-1034: the fields of an accepted form the answer leaves out take the schema's defaults.
fn apply_defaults(content: &mut Option<Value>, schema: &Value) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let content = content.get_or_insert_with(|| Value::Object(Default::default()));
    let Some(content) = content.as_object_mut() else {
        return;
    };
    for (name, property) in properties {
        if let Some(default) = property.get("default")
            && !content.contains_key(name)
        {
            content.insert(name.clone(), default.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_request_goes_to_its_own_call_or_to_the_one_session() {
        let (a, b, c) = (
            RequestId::Number(1),
            RequestId::Number(2),
            RequestId::Number(3),
        );
        let on = |id: &RequestId| InboundStreamOrigin::OutboundRequest(id.clone());
        // On a call's response stream: that call, whoever else calls.
        let two_sessions = [(&a, 7), (&b, 8)];
        assert_eq!(
            pick(two_sessions.into_iter(), Some(&on(&b))),
            Some(b.clone())
        );
        // A call no longer in flight: nobody.
        assert_eq!(pick(two_sessions.into_iter(), Some(&on(&c))), None);
        // No origin (stdio, the standalone stream): only when one session has calls in flight.
        assert_eq!(pick(two_sessions.into_iter(), None), None);
        assert_eq!(
            pick(
                two_sessions.into_iter(),
                Some(&InboundStreamOrigin::Unassociated)
            ),
            None
        );
        let one_session = [(&a, 7), (&c, 7)];
        let chosen = pick(one_session.into_iter(), None).unwrap();
        assert!(chosen == a || chosen == c);
        assert_eq!(pick(std::iter::empty(), None), None);
    }

    /// A peer on the gateway's server side, connected to a client over an in-memory pipe.
    async fn server_peer() -> (Peer<RoleServer>, impl Sized) {
        use rmcp::ServiceExt;
        struct Server;
        impl rmcp::ServerHandler for Server {}
        let (a, b) = tokio::io::duplex(4096);
        let (server, client) = tokio::join!(Server.serve(a), ().serve(b));
        let server = server.unwrap();
        (server.peer().clone(), (server, client.unwrap()))
    }

    #[tokio::test]
    async fn a_request_heard_before_its_call_is_registered_waits_for_it() {
        let (peer, _running) = server_peer().await;
        let calls = std::sync::Arc::new(Calls::default());
        let id = RequestId::Number(1);
        let on_its_stream = InboundStreamOrigin::OutboundRequest(id.clone());
        // No call being sent: nobody, at once.
        let started = std::time::Instant::now();
        assert!(calls.find(Some(&on_its_stream)).await.is_none());
        assert!(calls.find(None).await.is_none());
        assert!(started.elapsed() < REGISTRATION_WAIT);
        // The server's request comes while the call is being sent: it waits for the
        // registration and finds its caller, on the call's stream or without an origin.
        for origin in [Some(on_its_stream.clone()), None] {
            let sending = calls.sending();
            let finder = {
                let calls = calls.clone();
                let origin = origin.clone();
                tokio::spawn(async move { calls.find(origin.as_ref()).await })
            };
            tokio::time::sleep(Duration::from_millis(50)).await;
            assert!(
                !finder.is_finished(),
                "it gave up before the call was registered"
            );
            let caller = Caller {
                peer: peer.clone(),
                request: RequestId::Number(9),
                session: 3,
            };
            calls.insert(id.clone(), caller);
            drop(sending);
            let found = finder.await.unwrap().expect("the caller, once registered");
            assert_eq!((found.request, found.session), (RequestId::Number(9), 3));
            calls.remove(&id);
        }
        // A sending that fails (no registration) ends the wait too: nobody.
        let sending = calls.sending();
        let finder = {
            let calls = calls.clone();
            tokio::spawn(async move { calls.find(None).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        drop(sending);
        assert!(finder.await.unwrap().is_none());
    }

    #[test]
    fn defaults_fill_only_what_the_answer_left_out() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "verified": {"type": "boolean", "default": true},
            "note": {"type": "string"}
        }});
        let mut content = Some(json!({"age": 41}));
        apply_defaults(&mut content, &schema);
        assert_eq!(
            content,
            Some(json!({"name": "John Doe", "age": 41, "verified": true}))
        );
        let mut none = None;
        apply_defaults(&mut none, &schema);
        assert_eq!(none.unwrap()["name"], "John Doe");
        // Not an object: left as the client sent it.
        let mut odd = Some(json!("text"));
        apply_defaults(&mut odd, &schema);
        assert_eq!(odd, Some(json!("text")));
    }
}
