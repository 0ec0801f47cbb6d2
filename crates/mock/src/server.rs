//! The mock over HTTP: `POST /graphql` (and `/`) with `{query, variables,
//! operationName}`, GraphQL-over-HTTP style; `GET` with `?query=`. Execution runs on the
//! blocking pool.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::{Mock, Request};

/// A running mock server; dropping it stops the server.
pub struct MockServer {
    /// The address it listens on.
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl MockServer {
    /// `http://ADDR/graphql`.
    pub fn url(&self) -> String {
        format!("http://{}/graphql", self.addr)
    }

    /// Serve until the server is stopped (for the CLI: runs until Ctrl-C ends the
    /// process).
    pub async fn wait(mut self) {
        if let Some(t) = self.task.take() {
            let _ = t.await;
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

async fn answer(mock: Arc<Mock>, req: Request) -> Response {
    match tokio::task::spawn_blocking(move || mock.execute(&req)).await {
        Ok(v) => Json(v).into_response(),
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({"errors": [{"message": format!("the mock failed while executing: {e}")}]})),
        )
            .into_response(),
    }
}

async fn post_graphql(
    State(mock): State<Arc<Mock>>,
    body: Result<Json<Request>, axum::extract::rejection::JsonRejection>,
) -> Response {
    match body {
        Ok(Json(req)) => answer(mock, req).await,
        Err(e) => (
            StatusCode::BAD_REQUEST,
            Json(json!({"errors": [{"message": format!("the body must be JSON {{\"query\": \"…\", \"variables\": {{…}}}}: {e}")}]})),
        )
            .into_response(),
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct GetParams {
    query: Option<String>,
    variables: Option<String>,
    operation_name: Option<String>,
}

async fn get_graphql(State(mock): State<Arc<Mock>>, Query(p): Query<GetParams>) -> Response {
    let Some(query) = p.query else {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"errors": [{"message": "GET needs ?query=… (or POST a JSON body)"}]})),
        )
            .into_response();
    };
    let variables = match p.variables.as_deref().map(serde_json::from_str::<Value>) {
        None => None,
        Some(Ok(Value::Object(m))) => Some(m),
        Some(_) => {
            return (
                StatusCode::BAD_REQUEST,
                Json(json!({"errors": [{"message": "`variables` must be a JSON object"}]})),
            )
                .into_response()
        }
    };
    answer(
        mock,
        Request {
            query,
            variables,
            operation_name: p.operation_name,
        },
    )
    .await
}

/// Serve `mock` on `addr` (port 0 picks a free one).
pub async fn serve(mock: Arc<Mock>, addr: SocketAddr) -> std::io::Result<MockServer> {
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let app = Router::new()
        .route("/graphql", post(post_graphql).get(get_graphql))
        .route("/", post(post_graphql).get(get_graphql))
        .with_state(mock);
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let served = axum::serve(listener, app).with_graceful_shutdown(async {
            let _ = rx.await;
        });
        if let Err(e) = served.await {
            tracing::warn!("mock server stopped: {e}");
        }
    });
    Ok(MockServer {
        addr,
        stop: Some(tx),
        task: Some(task),
    })
}
