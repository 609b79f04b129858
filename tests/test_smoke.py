def test_ping_with_a_pull_key(client, catalog, issue):
    key = issue("pull")
    response = client.get("/api/connectivity/v1/ping",
                          headers={"Authorization": f"Bearer {key.token}"})
    assert response.status_code == 200, response.json
    assert response.json["data"]["pong"] is True
    assert response.json["data"]["environment"] == "sandbox"
